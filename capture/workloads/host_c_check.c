/* Compiles capture/host/warptrace.h as C99 (implementation included): the host library is C. */
#define _POSIX_C_SOURCE 200809L
#define WARPTRACE_IMPLEMENTATION
#include "warptrace.h"
