#include <stdio.h>
#include "tenferro/tenferro.h"
int main(void) { printf("tenferro %s\n", tfr_version_string()); return 0; }
