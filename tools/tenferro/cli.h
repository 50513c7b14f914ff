// The tenferro command-line tool: one function per subcommand.
#ifndef TENFERRO_TOOLS_TENFERRO_CLI_H_
#define TENFERRO_TOOLS_TENFERRO_CLI_H_

// Each returns the process exit status (0 success, 1 failure, 2 usage error).
int tfr_cli_info(int argc, char **argv);
int tfr_cli_demo(int argc, char **argv);
int tfr_cli_conformance(int argc, char **argv);
int tfr_cli_contract(int argc, char **argv);
int tfr_cli_einsum(int argc, char **argv);

// Prints "tenferro: <what>: <library message>" to stderr; returns 1.
int tfr_cli_fail(const char *what);

#endif  // TENFERRO_TOOLS_TENFERRO_CLI_H_
