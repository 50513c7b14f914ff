// Our own declarations of the subset of webgpu.h the webgpu backend uses, for
// the provider described in ../shared/webgpu/README.md (Dawn, from the npm
// package bun-webgpu-linux-x64@0.1.7). No header ships with that library, and
// its numbers differ from today's upstream webgpu.h in places (feature names,
// the instance descriptor), so nothing here is copied from upstream: every
// struct's size and field offsets are checked below against the layouts
// recorded in the library's own debug info (dawn-struct-layouts.txt). A wrong
// layout would fail silently at run time; these asserts make it a build error.
//
// Names follow webgpu.h (WGPU prefix) so that the code reads like the spec;
// they are internal to src/webgpu/ and never exported.
#ifndef TENFERRO_SRC_WEBGPU_WEBGPU_ABI_H_
#define TENFERRO_SRC_WEBGPU_WEBGPU_ABI_H_

#include <stddef.h>
#include <stdint.h>

// ---------------------------------------------------------------------------
// Scalars, flags and handles
// ---------------------------------------------------------------------------

typedef uint32_t WGPUBool;
// Every flag type of this build is 64 bits wide.
typedef uint64_t WGPUBufferUsage;
typedef uint64_t WGPUShaderStage;
typedef uint64_t WGPUMapMode;

#define WGPU_BUFFER_USAGE_MAP_READ UINT64_C(0x1)
#define WGPU_BUFFER_USAGE_MAP_WRITE UINT64_C(0x2)
#define WGPU_BUFFER_USAGE_COPY_SRC UINT64_C(0x4)
#define WGPU_BUFFER_USAGE_COPY_DST UINT64_C(0x8)
#define WGPU_BUFFER_USAGE_UNIFORM UINT64_C(0x40)
#define WGPU_BUFFER_USAGE_STORAGE UINT64_C(0x80)
#define WGPU_SHADER_STAGE_COMPUTE UINT64_C(0x4)
#define WGPU_MAP_MODE_READ UINT64_C(0x1)
#define WGPU_MAP_MODE_WRITE UINT64_C(0x2)
#define WGPU_WHOLE_SIZE UINT64_MAX
#define WGPU_STRLEN SIZE_MAX  // WGPUStringView.length of a NUL-terminated input

typedef struct WGPUInstanceImpl *WGPUInstance;
typedef struct WGPUAdapterImpl *WGPUAdapter;
typedef struct WGPUDeviceImpl *WGPUDevice;
typedef struct WGPUQueueImpl *WGPUQueue;
typedef struct WGPUBufferImpl *WGPUBuffer;
typedef struct WGPUShaderModuleImpl *WGPUShaderModule;
typedef struct WGPUBindGroupLayoutImpl *WGPUBindGroupLayout;
typedef struct WGPUBindGroupImpl *WGPUBindGroup;
typedef struct WGPUPipelineLayoutImpl *WGPUPipelineLayout;
typedef struct WGPUComputePipelineImpl *WGPUComputePipeline;
typedef struct WGPUCommandEncoderImpl *WGPUCommandEncoder;
typedef struct WGPUCommandBufferImpl *WGPUCommandBuffer;
typedef struct WGPUComputePassEncoderImpl *WGPUComputePassEncoder;
typedef struct WGPUQuerySetImpl *WGPUQuerySet;
typedef struct WGPUSurfaceImpl *WGPUSurface;
typedef struct WGPUSamplerImpl *WGPUSampler;
typedef struct WGPUTextureViewImpl *WGPUTextureView;

// ---------------------------------------------------------------------------
// Enums: only the values we use. All are 32-bit C enums in the ABI; we keep
// them as uint32_t so a value the provider adds can never be undefined
// behaviour on our side.
// ---------------------------------------------------------------------------

// WGPUSType
#define WGPU_STYPE_SHADER_SOURCE_WGSL 0x00000002u
#define WGPU_STYPE_DAWN_TOGGLES_DESCRIPTOR 0x0005000Au
// WGPUFeatureName (numbers of this build, not upstream's; see the README)
#define WGPU_FEATURE_SHADER_F16 10u
#define WGPU_FEATURE_SUBGROUPS 17u
#define WGPU_FEATURE_CORE_FEATURES_AND_LIMITS 18u
#define WGPU_FEATURE_SUBGROUPS_F16 0x00050008u
// WGPUCallbackMode
#define WGPU_CALLBACK_MODE_WAIT_ANY_ONLY 1u
#define WGPU_CALLBACK_MODE_ALLOW_PROCESS_EVENTS 2u
#define WGPU_CALLBACK_MODE_ALLOW_SPONTANEOUS 3u
// WGPUStatus and the per-request statuses: Success is 1 everywhere.
#define WGPU_STATUS_SUCCESS 1u
// WGPUWaitStatus
#define WGPU_WAIT_STATUS_SUCCESS 1u
#define WGPU_WAIT_STATUS_TIMED_OUT 2u
// WGPUErrorType
#define WGPU_ERROR_TYPE_NO_ERROR 1u
#define WGPU_ERROR_TYPE_VALIDATION 2u
#define WGPU_ERROR_TYPE_OUT_OF_MEMORY 3u
#define WGPU_ERROR_TYPE_INTERNAL 4u
#define WGPU_ERROR_TYPE_UNKNOWN 5u
// WGPUErrorFilter
#define WGPU_ERROR_FILTER_VALIDATION 1u
#define WGPU_ERROR_FILTER_OUT_OF_MEMORY 2u
#define WGPU_ERROR_FILTER_INTERNAL 3u
// WGPUBackendType
#define WGPU_BACKEND_UNDEFINED 0u
#define WGPU_BACKEND_NULL 1u
#define WGPU_BACKEND_WEBGPU 2u
#define WGPU_BACKEND_D3D11 3u
#define WGPU_BACKEND_D3D12 4u
#define WGPU_BACKEND_METAL 5u
#define WGPU_BACKEND_VULKAN 6u
#define WGPU_BACKEND_OPENGL 7u
#define WGPU_BACKEND_OPENGLES 8u
// WGPUAdapterType
#define WGPU_ADAPTER_DISCRETE_GPU 1u
#define WGPU_ADAPTER_INTEGRATED_GPU 2u
#define WGPU_ADAPTER_CPU 3u
// WGPUPowerPreference
#define WGPU_POWER_UNDEFINED 0u
#define WGPU_POWER_LOW_POWER 1u
#define WGPU_POWER_HIGH_PERFORMANCE 2u
// WGPUBufferBindingType
#define WGPU_BUFFER_BINDING_UNIFORM 2u
#define WGPU_BUFFER_BINDING_STORAGE 3u
#define WGPU_BUFFER_BINDING_READ_ONLY_STORAGE 4u
// WGPUCompilationMessageType
#define WGPU_COMPILATION_MESSAGE_ERROR 1u
// WGPUDeviceLostReason
#define WGPU_DEVICE_LOST_DESTROYED 2u
#define WGPU_DEVICE_LOST_CALLBACK_CANCELLED 3u

// ---------------------------------------------------------------------------
// Structs
// ---------------------------------------------------------------------------

typedef struct WGPUStringView {
  const char *data;
  size_t length;  // WGPU_STRLEN for NUL-terminated input; outputs lack the NUL
} WGPUStringView;

typedef struct WGPUChainedStruct {
  const struct WGPUChainedStruct *next;
  uint32_t sType;
} WGPUChainedStruct;

typedef struct WGPUFuture {
  uint64_t id;
} WGPUFuture;

typedef struct WGPUFutureWaitInfo {
  WGPUFuture future;
  WGPUBool completed;
} WGPUFutureWaitInfo;

typedef struct WGPUInstanceCapabilities {
  const WGPUChainedStruct *nextInChain;
  WGPUBool timedWaitAnyEnable;
  size_t timedWaitAnyMaxCount;
} WGPUInstanceCapabilities;

typedef struct WGPUInstanceDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUInstanceCapabilities capabilities;
} WGPUInstanceDescriptor;

typedef struct WGPURequestAdapterOptions {
  const WGPUChainedStruct *nextInChain;
  uint32_t featureLevel;
  uint32_t powerPreference;
  WGPUBool forceFallbackAdapter;
  uint32_t backendType;
  WGPUSurface compatibleSurface;
} WGPURequestAdapterOptions;

// Callback types (README: "Callback signatures").
typedef void (*WGPURequestAdapterCallback)(uint32_t status, WGPUAdapter adapter,
                                           WGPUStringView message, void *userdata1,
                                           void *userdata2);
typedef void (*WGPURequestDeviceCallback)(uint32_t status, WGPUDevice device,
                                          WGPUStringView message, void *userdata1,
                                          void *userdata2);
typedef void (*WGPUBufferMapCallback)(uint32_t status, WGPUStringView message, void *userdata1,
                                      void *userdata2);
typedef void (*WGPUQueueWorkDoneCallback)(uint32_t status, WGPUStringView message,
                                          void *userdata1, void *userdata2);
typedef void (*WGPUPopErrorScopeCallback)(uint32_t status, uint32_t type, WGPUStringView message,
                                          void *userdata1, void *userdata2);
typedef void (*WGPUDeviceErrorCallback)(const WGPUDevice *device, uint32_t type_or_reason,
                                        WGPUStringView message, void *userdata1,
                                        void *userdata2);
struct WGPUCompilationInfo;
typedef void (*WGPUCompilationInfoCallback)(uint32_t status,
                                            const struct WGPUCompilationInfo *info,
                                            void *userdata1, void *userdata2);

// Every *CallbackInfo except the uncaptured-error one has this shape; one
// struct per name keeps call sites typed.
#define TFR_WGPU_CALLBACK_INFO(Name, Fn) \
  typedef struct Name {                  \
    const WGPUChainedStruct *nextInChain; \
    uint32_t mode;                       \
    Fn callback;                         \
    void *userdata1;                     \
    void *userdata2;                     \
  } Name
TFR_WGPU_CALLBACK_INFO(WGPURequestAdapterCallbackInfo, WGPURequestAdapterCallback);
TFR_WGPU_CALLBACK_INFO(WGPURequestDeviceCallbackInfo, WGPURequestDeviceCallback);
TFR_WGPU_CALLBACK_INFO(WGPUBufferMapCallbackInfo, WGPUBufferMapCallback);
TFR_WGPU_CALLBACK_INFO(WGPUQueueWorkDoneCallbackInfo, WGPUQueueWorkDoneCallback);
TFR_WGPU_CALLBACK_INFO(WGPUPopErrorScopeCallbackInfo, WGPUPopErrorScopeCallback);
TFR_WGPU_CALLBACK_INFO(WGPUDeviceLostCallbackInfo, WGPUDeviceErrorCallback);
TFR_WGPU_CALLBACK_INFO(WGPUCompilationInfoCallbackInfo, WGPUCompilationInfoCallback);
#undef TFR_WGPU_CALLBACK_INFO

typedef struct WGPUUncapturedErrorCallbackInfo {  // no `mode` (README)
  const WGPUChainedStruct *nextInChain;
  WGPUDeviceErrorCallback callback;
  void *userdata1;
  void *userdata2;
} WGPUUncapturedErrorCallbackInfo;

typedef struct WGPUAdapterInfo {
  WGPUChainedStruct *nextInChain;
  WGPUStringView vendor;
  WGPUStringView architecture;
  WGPUStringView device;
  WGPUStringView description;
  uint32_t backendType;
  uint32_t adapterType;
  uint32_t vendorID;
  uint32_t deviceID;
  uint32_t subgroupMinSize;
  uint32_t subgroupMaxSize;
} WGPUAdapterInfo;

// Dawn's experimental subgroup matrix configurations (chained to
// wgpuAdapterGetInfo; Dawn refuses the query when the adapter lacks the
// feature).
#define WGPU_STYPE_ADAPTER_PROPERTIES_SUBGROUP_MATRIX_CONFIGS 0x0005003Bu
typedef struct WGPUSubgroupMatrixConfig {
  uint32_t componentType;  // 1 f32, 2 f16, 3 u32, 4 i32, 5 u8, 6 i8
  uint32_t resultComponentType;
  uint32_t M;
  uint32_t N;
  uint32_t K;
} WGPUSubgroupMatrixConfig;

typedef struct WGPUAdapterPropertiesSubgroupMatrixConfigs {
  WGPUChainedStruct chain;
  size_t configCount;
  const WGPUSubgroupMatrixConfig *configs;
} WGPUAdapterPropertiesSubgroupMatrixConfigs;

typedef struct WGPULimits {
  WGPUChainedStruct *nextInChain;
  uint32_t maxTextureDimension1D;
  uint32_t maxTextureDimension2D;
  uint32_t maxTextureDimension3D;
  uint32_t maxTextureArrayLayers;
  uint32_t maxBindGroups;
  uint32_t maxBindGroupsPlusVertexBuffers;
  uint32_t maxBindingsPerBindGroup;
  uint32_t maxDynamicUniformBuffersPerPipelineLayout;
  uint32_t maxDynamicStorageBuffersPerPipelineLayout;
  uint32_t maxSampledTexturesPerShaderStage;
  uint32_t maxSamplersPerShaderStage;
  uint32_t maxStorageBuffersPerShaderStage;
  uint32_t maxStorageTexturesPerShaderStage;
  uint32_t maxUniformBuffersPerShaderStage;
  uint64_t maxUniformBufferBindingSize;
  uint64_t maxStorageBufferBindingSize;
  uint32_t minUniformBufferOffsetAlignment;
  uint32_t minStorageBufferOffsetAlignment;
  uint32_t maxVertexBuffers;
  uint64_t maxBufferSize;
  uint32_t maxVertexAttributes;
  uint32_t maxVertexBufferArrayStride;
  uint32_t maxInterStageShaderVariables;
  uint32_t maxColorAttachments;
  uint32_t maxColorAttachmentBytesPerSample;
  uint32_t maxComputeWorkgroupStorageSize;
  uint32_t maxComputeInvocationsPerWorkgroup;
  uint32_t maxComputeWorkgroupSizeX;
  uint32_t maxComputeWorkgroupSizeY;
  uint32_t maxComputeWorkgroupSizeZ;
  uint32_t maxComputeWorkgroupsPerDimension;
  uint32_t maxImmediateSize;
} WGPULimits;

typedef struct WGPUSupportedFeatures {
  size_t featureCount;
  const uint32_t *features;
} WGPUSupportedFeatures;

typedef struct WGPUQueueDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
} WGPUQueueDescriptor;

typedef struct WGPUDeviceDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  size_t requiredFeatureCount;
  const uint32_t *requiredFeatures;
  const WGPULimits *requiredLimits;
  WGPUQueueDescriptor defaultQueue;
  WGPUDeviceLostCallbackInfo deviceLostCallbackInfo;
  WGPUUncapturedErrorCallbackInfo uncapturedErrorCallbackInfo;
} WGPUDeviceDescriptor;

// Dawn's toggles, chained to adapter options or a device descriptor. Not in
// the layout dump; it is a chained header plus two (count, array) pairs, so
// its layout follows from the C rules checked below on the pieces.
typedef struct WGPUDawnTogglesDescriptor {
  WGPUChainedStruct chain;
  size_t enabledToggleCount;
  const char *const *enabledToggles;
  size_t disabledToggleCount;
  const char *const *disabledToggles;
} WGPUDawnTogglesDescriptor;

typedef struct WGPUBufferDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUBufferUsage usage;
  uint64_t size;
  WGPUBool mappedAtCreation;
} WGPUBufferDescriptor;

typedef struct WGPUShaderModuleDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
} WGPUShaderModuleDescriptor;

// Chained to WGPUShaderModuleDescriptor (not in the dump: header + string).
typedef struct WGPUShaderSourceWGSL {
  WGPUChainedStruct chain;
  WGPUStringView code;
} WGPUShaderSourceWGSL;

// The compilation info of a shader module. Not in the layout dump either;
// this is the layout of webgpu.h since the UTF-16 fields moved to a chained
// struct (DawnCompilationMessageUtf16, which this build has). Because it
// cannot be checked at build time, pipeline.c sanity-checks what it reads
// (message type, line within the source) and falls back to the error-scope
// text, which carries the same diagnostics.
typedef struct WGPUCompilationMessage {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView message;
  uint32_t type;
  uint64_t lineNum;
  uint64_t linePos;
  uint64_t offset;
  uint64_t length;
} WGPUCompilationMessage;

typedef struct WGPUCompilationInfo {
  const WGPUChainedStruct *nextInChain;
  size_t messageCount;
  const WGPUCompilationMessage *messages;
} WGPUCompilationInfo;

typedef struct WGPUBufferBindingLayout {
  const WGPUChainedStruct *nextInChain;
  uint32_t type;
  WGPUBool hasDynamicOffset;
  uint64_t minBindingSize;
} WGPUBufferBindingLayout;

// The three binding kinds we never use still take their room in an entry:
// declared so the entry's layout is right, always zero (= BindingNotUsed).
typedef struct WGPUSamplerBindingLayout {
  const WGPUChainedStruct *nextInChain;
  uint32_t type;
} WGPUSamplerBindingLayout;

typedef struct WGPUTextureBindingLayout {
  const WGPUChainedStruct *nextInChain;
  uint32_t sampleType;
  uint32_t viewDimension;
  WGPUBool multisampled;
} WGPUTextureBindingLayout;

typedef struct WGPUStorageTextureBindingLayout {
  const WGPUChainedStruct *nextInChain;
  uint32_t access;
  uint32_t format;
  uint32_t viewDimension;
} WGPUStorageTextureBindingLayout;

typedef struct WGPUBindGroupLayoutEntry {
  const WGPUChainedStruct *nextInChain;
  uint32_t binding;
  WGPUShaderStage visibility;
  uint32_t bindingArraySize;
  WGPUBufferBindingLayout buffer;
  WGPUSamplerBindingLayout sampler;
  WGPUTextureBindingLayout texture;
  WGPUStorageTextureBindingLayout storageTexture;
} WGPUBindGroupLayoutEntry;

typedef struct WGPUBindGroupLayoutDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  size_t entryCount;
  const WGPUBindGroupLayoutEntry *entries;
} WGPUBindGroupLayoutDescriptor;

typedef struct WGPUBindGroupEntry {
  const WGPUChainedStruct *nextInChain;
  uint32_t binding;
  WGPUBuffer buffer;
  uint64_t offset;
  uint64_t size;
  WGPUSampler sampler;
  WGPUTextureView textureView;
} WGPUBindGroupEntry;

typedef struct WGPUBindGroupDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUBindGroupLayout layout;
  size_t entryCount;
  const WGPUBindGroupEntry *entries;
} WGPUBindGroupDescriptor;

typedef struct WGPUPipelineLayoutDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  size_t bindGroupLayoutCount;
  const WGPUBindGroupLayout *bindGroupLayouts;
  uint32_t immediateSize;
} WGPUPipelineLayoutDescriptor;

typedef struct WGPUConstantEntry {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView key;
  double value;
} WGPUConstantEntry;

typedef struct WGPUComputeState {
  const WGPUChainedStruct *nextInChain;
  WGPUShaderModule module;
  WGPUStringView entryPoint;
  size_t constantCount;
  const WGPUConstantEntry *constants;
} WGPUComputeState;

typedef struct WGPUComputePipelineDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUPipelineLayout layout;
  WGPUComputeState compute;
} WGPUComputePipelineDescriptor;

typedef struct WGPUCommandEncoderDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
} WGPUCommandEncoderDescriptor;

typedef struct WGPUPassTimestampWrites WGPUPassTimestampWrites;  // never used

typedef struct WGPUComputePassDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  const WGPUPassTimestampWrites *timestampWrites;
} WGPUComputePassDescriptor;

typedef struct WGPUCommandBufferDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
} WGPUCommandBufferDescriptor;

// ---------------------------------------------------------------------------
// Layout checks against dawn-struct-layouts.txt (size, then every field).
// ---------------------------------------------------------------------------

#define TFR_ABI_SIZE(T, n) _Static_assert(sizeof(T) == (n), "sizeof " #T " != " #n)
#define TFR_ABI_AT(T, f, n) \
  _Static_assert(offsetof(T, f) == (n), "offsetof(" #T ", " #f ") != " #n)

TFR_ABI_SIZE(WGPUStringView, 16);
TFR_ABI_AT(WGPUStringView, data, 0);
TFR_ABI_AT(WGPUStringView, length, 8);

TFR_ABI_SIZE(WGPUChainedStruct, 16);
TFR_ABI_AT(WGPUChainedStruct, next, 0);
TFR_ABI_AT(WGPUChainedStruct, sType, 8);

TFR_ABI_SIZE(WGPUFuture, 8);
TFR_ABI_SIZE(WGPUFutureWaitInfo, 16);
TFR_ABI_AT(WGPUFutureWaitInfo, future, 0);
TFR_ABI_AT(WGPUFutureWaitInfo, completed, 8);

TFR_ABI_SIZE(WGPUInstanceCapabilities, 24);
TFR_ABI_AT(WGPUInstanceCapabilities, nextInChain, 0);
TFR_ABI_AT(WGPUInstanceCapabilities, timedWaitAnyEnable, 8);
TFR_ABI_AT(WGPUInstanceCapabilities, timedWaitAnyMaxCount, 16);

TFR_ABI_SIZE(WGPUInstanceDescriptor, 32);
TFR_ABI_AT(WGPUInstanceDescriptor, nextInChain, 0);
TFR_ABI_AT(WGPUInstanceDescriptor, capabilities, 8);

TFR_ABI_SIZE(WGPURequestAdapterOptions, 32);
TFR_ABI_AT(WGPURequestAdapterOptions, nextInChain, 0);
TFR_ABI_AT(WGPURequestAdapterOptions, featureLevel, 8);
TFR_ABI_AT(WGPURequestAdapterOptions, powerPreference, 12);
TFR_ABI_AT(WGPURequestAdapterOptions, forceFallbackAdapter, 16);
TFR_ABI_AT(WGPURequestAdapterOptions, backendType, 20);
TFR_ABI_AT(WGPURequestAdapterOptions, compatibleSurface, 24);

// All 40-byte callback infos share one layout; check each name used.
#define TFR_ABI_CALLBACK_INFO(T)       \
  TFR_ABI_SIZE(T, 40);                 \
  TFR_ABI_AT(T, nextInChain, 0);       \
  TFR_ABI_AT(T, mode, 8);              \
  TFR_ABI_AT(T, callback, 16);         \
  TFR_ABI_AT(T, userdata1, 24);        \
  TFR_ABI_AT(T, userdata2, 32)
TFR_ABI_CALLBACK_INFO(WGPURequestAdapterCallbackInfo);
TFR_ABI_CALLBACK_INFO(WGPURequestDeviceCallbackInfo);
TFR_ABI_CALLBACK_INFO(WGPUBufferMapCallbackInfo);
TFR_ABI_CALLBACK_INFO(WGPUQueueWorkDoneCallbackInfo);
TFR_ABI_CALLBACK_INFO(WGPUPopErrorScopeCallbackInfo);
TFR_ABI_CALLBACK_INFO(WGPUDeviceLostCallbackInfo);
TFR_ABI_CALLBACK_INFO(WGPUCompilationInfoCallbackInfo);
#undef TFR_ABI_CALLBACK_INFO

TFR_ABI_SIZE(WGPUUncapturedErrorCallbackInfo, 32);
TFR_ABI_AT(WGPUUncapturedErrorCallbackInfo, nextInChain, 0);
TFR_ABI_AT(WGPUUncapturedErrorCallbackInfo, callback, 8);
TFR_ABI_AT(WGPUUncapturedErrorCallbackInfo, userdata1, 16);
TFR_ABI_AT(WGPUUncapturedErrorCallbackInfo, userdata2, 24);

TFR_ABI_SIZE(WGPUAdapterInfo, 96);
TFR_ABI_AT(WGPUAdapterInfo, nextInChain, 0);
TFR_ABI_AT(WGPUAdapterInfo, vendor, 8);
TFR_ABI_AT(WGPUAdapterInfo, architecture, 24);
TFR_ABI_AT(WGPUAdapterInfo, device, 40);
TFR_ABI_AT(WGPUAdapterInfo, description, 56);
TFR_ABI_AT(WGPUAdapterInfo, backendType, 72);
TFR_ABI_AT(WGPUAdapterInfo, adapterType, 76);
TFR_ABI_AT(WGPUAdapterInfo, vendorID, 80);
TFR_ABI_AT(WGPUAdapterInfo, deviceID, 84);
TFR_ABI_AT(WGPUAdapterInfo, subgroupMinSize, 88);
TFR_ABI_AT(WGPUAdapterInfo, subgroupMaxSize, 92);

TFR_ABI_SIZE(WGPULimits, 152);
TFR_ABI_AT(WGPULimits, nextInChain, 0);
TFR_ABI_AT(WGPULimits, maxTextureDimension1D, 8);
TFR_ABI_AT(WGPULimits, maxTextureDimension2D, 12);
TFR_ABI_AT(WGPULimits, maxTextureDimension3D, 16);
TFR_ABI_AT(WGPULimits, maxTextureArrayLayers, 20);
TFR_ABI_AT(WGPULimits, maxBindGroups, 24);
TFR_ABI_AT(WGPULimits, maxBindGroupsPlusVertexBuffers, 28);
TFR_ABI_AT(WGPULimits, maxBindingsPerBindGroup, 32);
TFR_ABI_AT(WGPULimits, maxDynamicUniformBuffersPerPipelineLayout, 36);
TFR_ABI_AT(WGPULimits, maxDynamicStorageBuffersPerPipelineLayout, 40);
TFR_ABI_AT(WGPULimits, maxSampledTexturesPerShaderStage, 44);
TFR_ABI_AT(WGPULimits, maxSamplersPerShaderStage, 48);
TFR_ABI_AT(WGPULimits, maxStorageBuffersPerShaderStage, 52);
TFR_ABI_AT(WGPULimits, maxStorageTexturesPerShaderStage, 56);
TFR_ABI_AT(WGPULimits, maxUniformBuffersPerShaderStage, 60);
TFR_ABI_AT(WGPULimits, maxUniformBufferBindingSize, 64);
TFR_ABI_AT(WGPULimits, maxStorageBufferBindingSize, 72);
TFR_ABI_AT(WGPULimits, minUniformBufferOffsetAlignment, 80);
TFR_ABI_AT(WGPULimits, minStorageBufferOffsetAlignment, 84);
TFR_ABI_AT(WGPULimits, maxVertexBuffers, 88);
TFR_ABI_AT(WGPULimits, maxBufferSize, 96);
TFR_ABI_AT(WGPULimits, maxVertexAttributes, 104);
TFR_ABI_AT(WGPULimits, maxVertexBufferArrayStride, 108);
TFR_ABI_AT(WGPULimits, maxInterStageShaderVariables, 112);
TFR_ABI_AT(WGPULimits, maxColorAttachments, 116);
TFR_ABI_AT(WGPULimits, maxColorAttachmentBytesPerSample, 120);
TFR_ABI_AT(WGPULimits, maxComputeWorkgroupStorageSize, 124);
TFR_ABI_AT(WGPULimits, maxComputeInvocationsPerWorkgroup, 128);
TFR_ABI_AT(WGPULimits, maxComputeWorkgroupSizeX, 132);
TFR_ABI_AT(WGPULimits, maxComputeWorkgroupSizeY, 136);
TFR_ABI_AT(WGPULimits, maxComputeWorkgroupSizeZ, 140);
TFR_ABI_AT(WGPULimits, maxComputeWorkgroupsPerDimension, 144);
TFR_ABI_AT(WGPULimits, maxImmediateSize, 148);

TFR_ABI_SIZE(WGPUSupportedFeatures, 16);
TFR_ABI_AT(WGPUSupportedFeatures, featureCount, 0);
TFR_ABI_AT(WGPUSupportedFeatures, features, 8);

TFR_ABI_SIZE(WGPUQueueDescriptor, 24);
TFR_ABI_AT(WGPUQueueDescriptor, nextInChain, 0);
TFR_ABI_AT(WGPUQueueDescriptor, label, 8);

TFR_ABI_SIZE(WGPUDeviceDescriptor, 144);
TFR_ABI_AT(WGPUDeviceDescriptor, nextInChain, 0);
TFR_ABI_AT(WGPUDeviceDescriptor, label, 8);
TFR_ABI_AT(WGPUDeviceDescriptor, requiredFeatureCount, 24);
TFR_ABI_AT(WGPUDeviceDescriptor, requiredFeatures, 32);
TFR_ABI_AT(WGPUDeviceDescriptor, requiredLimits, 40);
TFR_ABI_AT(WGPUDeviceDescriptor, defaultQueue, 48);
TFR_ABI_AT(WGPUDeviceDescriptor, deviceLostCallbackInfo, 72);
TFR_ABI_AT(WGPUDeviceDescriptor, uncapturedErrorCallbackInfo, 112);

TFR_ABI_SIZE(WGPUDawnTogglesDescriptor, 48);  // derived, see the declaration
TFR_ABI_SIZE(WGPUShaderSourceWGSL, 32);        // derived
TFR_ABI_SIZE(WGPUCompilationMessage, 64);      // upstream layout, see above
TFR_ABI_SIZE(WGPUCompilationInfo, 24);         // upstream layout, see above

TFR_ABI_SIZE(WGPUBufferDescriptor, 48);
TFR_ABI_AT(WGPUBufferDescriptor, nextInChain, 0);
TFR_ABI_AT(WGPUBufferDescriptor, label, 8);
TFR_ABI_AT(WGPUBufferDescriptor, usage, 24);
TFR_ABI_AT(WGPUBufferDescriptor, size, 32);
TFR_ABI_AT(WGPUBufferDescriptor, mappedAtCreation, 40);

TFR_ABI_SIZE(WGPUShaderModuleDescriptor, 24);
TFR_ABI_AT(WGPUShaderModuleDescriptor, nextInChain, 0);
TFR_ABI_AT(WGPUShaderModuleDescriptor, label, 8);

TFR_ABI_SIZE(WGPUBufferBindingLayout, 24);
TFR_ABI_AT(WGPUBufferBindingLayout, nextInChain, 0);
TFR_ABI_AT(WGPUBufferBindingLayout, type, 8);
TFR_ABI_AT(WGPUBufferBindingLayout, hasDynamicOffset, 12);
TFR_ABI_AT(WGPUBufferBindingLayout, minBindingSize, 16);

TFR_ABI_SIZE(WGPUSamplerBindingLayout, 16);
TFR_ABI_AT(WGPUSamplerBindingLayout, type, 8);
TFR_ABI_SIZE(WGPUTextureBindingLayout, 24);
TFR_ABI_AT(WGPUTextureBindingLayout, sampleType, 8);
TFR_ABI_AT(WGPUTextureBindingLayout, viewDimension, 12);
TFR_ABI_AT(WGPUTextureBindingLayout, multisampled, 16);
TFR_ABI_SIZE(WGPUStorageTextureBindingLayout, 24);
TFR_ABI_AT(WGPUStorageTextureBindingLayout, access, 8);
TFR_ABI_AT(WGPUStorageTextureBindingLayout, format, 12);
TFR_ABI_AT(WGPUStorageTextureBindingLayout, viewDimension, 16);

TFR_ABI_SIZE(WGPUBindGroupLayoutEntry, 120);
TFR_ABI_AT(WGPUBindGroupLayoutEntry, nextInChain, 0);
TFR_ABI_AT(WGPUBindGroupLayoutEntry, binding, 8);
TFR_ABI_AT(WGPUBindGroupLayoutEntry, visibility, 16);
TFR_ABI_AT(WGPUBindGroupLayoutEntry, bindingArraySize, 24);
TFR_ABI_AT(WGPUBindGroupLayoutEntry, buffer, 32);
TFR_ABI_AT(WGPUBindGroupLayoutEntry, sampler, 56);
TFR_ABI_AT(WGPUBindGroupLayoutEntry, texture, 72);
TFR_ABI_AT(WGPUBindGroupLayoutEntry, storageTexture, 96);

TFR_ABI_SIZE(WGPUBindGroupLayoutDescriptor, 40);
TFR_ABI_AT(WGPUBindGroupLayoutDescriptor, nextInChain, 0);
TFR_ABI_AT(WGPUBindGroupLayoutDescriptor, label, 8);
TFR_ABI_AT(WGPUBindGroupLayoutDescriptor, entryCount, 24);
TFR_ABI_AT(WGPUBindGroupLayoutDescriptor, entries, 32);

TFR_ABI_SIZE(WGPUBindGroupEntry, 56);
TFR_ABI_AT(WGPUBindGroupEntry, nextInChain, 0);
TFR_ABI_AT(WGPUBindGroupEntry, binding, 8);
TFR_ABI_AT(WGPUBindGroupEntry, buffer, 16);
TFR_ABI_AT(WGPUBindGroupEntry, offset, 24);
TFR_ABI_AT(WGPUBindGroupEntry, size, 32);
TFR_ABI_AT(WGPUBindGroupEntry, sampler, 40);
TFR_ABI_AT(WGPUBindGroupEntry, textureView, 48);

TFR_ABI_SIZE(WGPUBindGroupDescriptor, 48);
TFR_ABI_AT(WGPUBindGroupDescriptor, nextInChain, 0);
TFR_ABI_AT(WGPUBindGroupDescriptor, label, 8);
TFR_ABI_AT(WGPUBindGroupDescriptor, layout, 24);
TFR_ABI_AT(WGPUBindGroupDescriptor, entryCount, 32);
TFR_ABI_AT(WGPUBindGroupDescriptor, entries, 40);

TFR_ABI_SIZE(WGPUPipelineLayoutDescriptor, 48);
TFR_ABI_AT(WGPUPipelineLayoutDescriptor, nextInChain, 0);
TFR_ABI_AT(WGPUPipelineLayoutDescriptor, label, 8);
TFR_ABI_AT(WGPUPipelineLayoutDescriptor, bindGroupLayoutCount, 24);
TFR_ABI_AT(WGPUPipelineLayoutDescriptor, bindGroupLayouts, 32);
TFR_ABI_AT(WGPUPipelineLayoutDescriptor, immediateSize, 40);

TFR_ABI_SIZE(WGPUConstantEntry, 32);
TFR_ABI_AT(WGPUConstantEntry, nextInChain, 0);
TFR_ABI_AT(WGPUConstantEntry, key, 8);
TFR_ABI_AT(WGPUConstantEntry, value, 24);

TFR_ABI_SIZE(WGPUComputeState, 48);
TFR_ABI_AT(WGPUComputeState, nextInChain, 0);
TFR_ABI_AT(WGPUComputeState, module, 8);
TFR_ABI_AT(WGPUComputeState, entryPoint, 16);
TFR_ABI_AT(WGPUComputeState, constantCount, 32);
TFR_ABI_AT(WGPUComputeState, constants, 40);

TFR_ABI_SIZE(WGPUComputePipelineDescriptor, 80);
TFR_ABI_AT(WGPUComputePipelineDescriptor, nextInChain, 0);
TFR_ABI_AT(WGPUComputePipelineDescriptor, label, 8);
TFR_ABI_AT(WGPUComputePipelineDescriptor, layout, 24);
TFR_ABI_AT(WGPUComputePipelineDescriptor, compute, 32);

TFR_ABI_SIZE(WGPUCommandEncoderDescriptor, 24);
TFR_ABI_AT(WGPUCommandEncoderDescriptor, nextInChain, 0);
TFR_ABI_AT(WGPUCommandEncoderDescriptor, label, 8);

TFR_ABI_SIZE(WGPUComputePassDescriptor, 32);
TFR_ABI_AT(WGPUComputePassDescriptor, nextInChain, 0);
TFR_ABI_AT(WGPUComputePassDescriptor, label, 8);
TFR_ABI_AT(WGPUComputePassDescriptor, timestampWrites, 24);

TFR_ABI_SIZE(WGPUCommandBufferDescriptor, 24);
TFR_ABI_AT(WGPUCommandBufferDescriptor, nextInChain, 0);
TFR_ABI_AT(WGPUCommandBufferDescriptor, label, 8);

#undef TFR_ABI_SIZE
#undef TFR_ABI_AT

// ---------------------------------------------------------------------------
// The functions we resolve from the provider: X(return type, name, params).
// loader.c turns this list into a table of pointers (tfr_wgpu_procs) and
// resolves every entry with dlsym, naming the first one that is missing.
// ---------------------------------------------------------------------------

#define TFR_WGPU_PROCS(X)                                                                       \
  X(WGPUInstance, wgpuCreateInstance, (const WGPUInstanceDescriptor *descriptor))               \
  X(void, wgpuInstanceRelease, (WGPUInstance instance))                                         \
  X(WGPUFuture, wgpuInstanceRequestAdapter,                                                     \
    (WGPUInstance instance, const WGPURequestAdapterOptions *options,                          \
     WGPURequestAdapterCallbackInfo callbackInfo))                                              \
  X(uint32_t, wgpuInstanceWaitAny,                                                              \
    (WGPUInstance instance, size_t futureCount, WGPUFutureWaitInfo *futures,                   \
     uint64_t timeoutNS))                                                                       \
  X(void, wgpuInstanceProcessEvents, (WGPUInstance instance))                                   \
  X(uint32_t, wgpuAdapterGetInfo, (WGPUAdapter adapter, WGPUAdapterInfo *info))                 \
  X(void, wgpuAdapterInfoFreeMembers, (WGPUAdapterInfo value))                                  \
  X(uint32_t, wgpuAdapterGetLimits, (WGPUAdapter adapter, WGPULimits *limits))                  \
  X(WGPUBool, wgpuAdapterHasFeature, (WGPUAdapter adapter, uint32_t feature))                   \
  X(void, wgpuAdapterGetFeatures, (WGPUAdapter adapter, WGPUSupportedFeatures *features))       \
  X(void, wgpuSupportedFeaturesFreeMembers, (WGPUSupportedFeatures value))                      \
  X(WGPUFuture, wgpuAdapterRequestDevice,                                                       \
    (WGPUAdapter adapter, const WGPUDeviceDescriptor *descriptor,                              \
     WGPURequestDeviceCallbackInfo callbackInfo))                                               \
  X(void, wgpuAdapterRelease, (WGPUAdapter adapter))                                            \
  X(WGPUQueue, wgpuDeviceGetQueue, (WGPUDevice device))                                         \
  X(uint32_t, wgpuDeviceGetLimits, (WGPUDevice device, WGPULimits *limits))                     \
  X(WGPUBool, wgpuDeviceHasFeature, (WGPUDevice device, uint32_t feature))                      \
  X(void, wgpuDevicePushErrorScope, (WGPUDevice device, uint32_t filter))                       \
  X(WGPUFuture, wgpuDevicePopErrorScope,                                                        \
    (WGPUDevice device, WGPUPopErrorScopeCallbackInfo callbackInfo))                            \
  X(void, wgpuDeviceDestroy, (WGPUDevice device))                                               \
  X(void, wgpuDeviceRelease, (WGPUDevice device))                                               \
  X(WGPUBuffer, wgpuDeviceCreateBuffer, (WGPUDevice device, const WGPUBufferDescriptor *desc))  \
  X(WGPUFuture, wgpuBufferMapAsync,                                                             \
    (WGPUBuffer buffer, WGPUMapMode mode, size_t offset, size_t size,                          \
     WGPUBufferMapCallbackInfo callbackInfo))                                                   \
  X(const void *, wgpuBufferGetConstMappedRange, (WGPUBuffer buffer, size_t offset, size_t size)) \
  X(void *, wgpuBufferGetMappedRange, (WGPUBuffer buffer, size_t offset, size_t size))        \
  X(void, wgpuBufferUnmap, (WGPUBuffer buffer))                                                 \
  X(void, wgpuBufferRelease, (WGPUBuffer buffer))                                               \
  X(WGPUShaderModule, wgpuDeviceCreateShaderModule,                                             \
    (WGPUDevice device, const WGPUShaderModuleDescriptor *desc))                                \
  X(WGPUFuture, wgpuShaderModuleGetCompilationInfo,                                             \
    (WGPUShaderModule module, WGPUCompilationInfoCallbackInfo callbackInfo))                    \
  X(void, wgpuShaderModuleRelease, (WGPUShaderModule module))                                   \
  X(WGPUBindGroupLayout, wgpuDeviceCreateBindGroupLayout,                                       \
    (WGPUDevice device, const WGPUBindGroupLayoutDescriptor *desc))                             \
  X(void, wgpuBindGroupLayoutRelease, (WGPUBindGroupLayout layout))                             \
  X(WGPUPipelineLayout, wgpuDeviceCreatePipelineLayout,                                         \
    (WGPUDevice device, const WGPUPipelineLayoutDescriptor *desc))                              \
  X(void, wgpuPipelineLayoutRelease, (WGPUPipelineLayout layout))                               \
  X(WGPUComputePipeline, wgpuDeviceCreateComputePipeline,                                       \
    (WGPUDevice device, const WGPUComputePipelineDescriptor *desc))                             \
  X(void, wgpuComputePipelineRelease, (WGPUComputePipeline pipeline))                           \
  X(WGPUBindGroup, wgpuDeviceCreateBindGroup,                                                   \
    (WGPUDevice device, const WGPUBindGroupDescriptor *desc))                                   \
  X(void, wgpuBindGroupRelease, (WGPUBindGroup group))                                          \
  X(WGPUCommandEncoder, wgpuDeviceCreateCommandEncoder,                                         \
    (WGPUDevice device, const WGPUCommandEncoderDescriptor *desc))                              \
  X(void, wgpuCommandEncoderRelease, (WGPUCommandEncoder encoder))                              \
  X(WGPUComputePassEncoder, wgpuCommandEncoderBeginComputePass,                                 \
    (WGPUCommandEncoder encoder, const WGPUComputePassDescriptor *desc))                        \
  X(void, wgpuCommandEncoderCopyBufferToBuffer,                                                 \
    (WGPUCommandEncoder encoder, WGPUBuffer source, uint64_t sourceOffset,                     \
     WGPUBuffer destination, uint64_t destinationOffset, uint64_t size))                        \
  X(void, wgpuCommandEncoderClearBuffer,                                                        \
    (WGPUCommandEncoder encoder, WGPUBuffer buffer, uint64_t offset, uint64_t size))            \
  X(WGPUCommandBuffer, wgpuCommandEncoderFinish,                                                \
    (WGPUCommandEncoder encoder, const WGPUCommandBufferDescriptor *desc))                      \
  X(void, wgpuCommandBufferRelease, (WGPUCommandBuffer buffer))                                 \
  X(void, wgpuComputePassEncoderSetPipeline,                                                    \
    (WGPUComputePassEncoder pass, WGPUComputePipeline pipeline))                                \
  X(void, wgpuComputePassEncoderSetBindGroup,                                                   \
    (WGPUComputePassEncoder pass, uint32_t groupIndex, WGPUBindGroup group,                    \
     size_t dynamicOffsetCount, const uint32_t *dynamicOffsets))                                \
  X(void, wgpuComputePassEncoderDispatchWorkgroups,                                             \
    (WGPUComputePassEncoder pass, uint32_t x, uint32_t y, uint32_t z))                          \
  X(void, wgpuComputePassEncoderEnd, (WGPUComputePassEncoder pass))                             \
  X(void, wgpuComputePassEncoderRelease, (WGPUComputePassEncoder pass))                         \
  X(void, wgpuQueueSubmit, (WGPUQueue queue, size_t commandCount, const WGPUCommandBuffer *cmds)) \
  X(void, wgpuQueueWriteBuffer,                                                                 \
    (WGPUQueue queue, WGPUBuffer buffer, uint64_t bufferOffset, const void *data, size_t size)) \
  X(WGPUFuture, wgpuQueueOnSubmittedWorkDone,                                                   \
    (WGPUQueue queue, WGPUQueueWorkDoneCallbackInfo callbackInfo))                              \
  X(void, wgpuQueueRelease, (WGPUQueue queue))

#endif  // TENFERRO_SRC_WEBGPU_WEBGPU_ABI_H_
