/* Prints wtSpirvBlockCount (capture/host/warptrace_blocks.h) of the SPIR-V on stdin: test/node/block-mark.test.ts. */
#define _POSIX_C_SOURCE 200809L
#define WARPTRACE_IMPLEMENTATION
#include "warptrace.h"

int main(void) {
  static uint32_t code[1 << 16];
  size_t bytes = fread(code, 1, sizeof code, stdin);
  printf("%u\n", wtSpirvBlockCount(code, bytes));
  return 0;
}
