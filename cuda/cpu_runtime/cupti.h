/* cupti.h (CPU test double) - CUPTI as the CPU test double of the CUDA
 * runtime has it: absent. The declarations the plugin's profiler
 * (cuda/cupti_prof.cu) compiles against, and calls that all answer
 * "not available", so the plugin's paths for a machine without CUPTI
 * (a container without libcupti, a profiler already attached) run. */
#ifndef GS_CPU_CUPTI_H
#define GS_CPU_CUPTI_H

#include <stddef.h>
#include <stdint.h>

#define CUPTIAPI
typedef struct CUctx_st *CUcontext;

typedef enum { CUPTI_SUCCESS = 0, CUPTI_ERROR_NOT_INITIALIZED = 15, CUPTI_ERROR_OUT_OF_MEMORY = 22 } CUptiResult;
typedef enum {
    CUPTI_ACTIVITY_KIND_MEMCPY = 1,
    CUPTI_ACTIVITY_KIND_MEMSET = 2,
    CUPTI_ACTIVITY_KIND_KERNEL = 3,
    CUPTI_ACTIVITY_KIND_RUNTIME = 5,
    CUPTI_ACTIVITY_KIND_MEMCPY2 = 22,
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL = 10,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION = 38,
} CUpti_ActivityKind;
typedef enum { CUPTI_ACTIVITY_MEMCPY_KIND_HTOD = 1, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH = 2 } CUpti_ActivityMemcpyKind;
typedef enum { CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 = 4 } CUpti_ExternalCorrelationKind;

typedef struct {
    CUpti_ActivityKind kind;
} CUpti_Activity;
typedef struct {
    CUpti_ActivityKind kind;
    uint32_t correlationId;
    uint64_t externalId;
} CUpti_ActivityExternalCorrelation;
typedef struct {
    CUpti_ActivityKind kind;
    uint64_t start, end;
    uint32_t correlationId;
} CUpti_ActivityKernel10;
typedef struct {
    CUpti_ActivityKind kind;
    uint8_t copyKind;
    uint64_t bytes, start, end;
    uint32_t correlationId;
} CUpti_ActivityMemcpy6;
typedef struct {
    CUpti_ActivityKind kind;
    uint64_t bytes, start, end;
    uint32_t correlationId;
} CUpti_ActivityMemcpyPtoP4;
typedef CUpti_ActivityMemcpyPtoP4 CUpti_ActivityMemset4;

typedef void (*CUpti_BuffersCallbackRequestFunc)(uint8_t **buffer, size_t *size, size_t *max_records);
typedef void (*CUpti_BuffersCallbackCompleteFunc)(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid);

static inline CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req, CUpti_BuffersCallbackCompleteFunc done)
{
    (void)req, (void)done;
    return CUPTI_ERROR_NOT_INITIALIZED;
}
static inline CUptiResult cuptiActivityEnable(CUpti_ActivityKind k)
{
    (void)k;
    return CUPTI_ERROR_NOT_INITIALIZED;
}
static inline CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
    *s = r == CUPTI_SUCCESS ? "CUPTI_SUCCESS" : "CUPTI is absent (the CPU test double of the CUDA runtime)";
    return CUPTI_SUCCESS;
}
static inline CUptiResult cuptiGetTimestamp(uint64_t *ts)
{
    *ts = 0;
    return CUPTI_ERROR_NOT_INITIALIZED;
}
static inline CUptiResult cuptiActivityFlushPeriod(uint32_t ms)
{
    (void)ms;
    return CUPTI_ERROR_NOT_INITIALIZED;
}
static inline CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
    (void)flag;
    return CUPTI_ERROR_NOT_INITIALIZED;
}
static inline CUptiResult cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, CUpti_Activity **r)
{
    (void)buf, (void)valid, (void)r;
    return CUPTI_ERROR_NOT_INITIALIZED;
}
static inline CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind k, uint64_t id)
{
    (void)k, (void)id;
    return CUPTI_ERROR_NOT_INITIALIZED;
}
static inline CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind k, uint64_t *id)
{
    (void)k, (void)id;
    return CUPTI_ERROR_NOT_INITIALIZED;
}

#endif
