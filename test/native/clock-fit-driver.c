/* Runs warptrace.h's wtFitClockSamples on brackets read from stdin, for test/node/clock-check.test.ts.
 * argv[1]: timestamp period (ns per tick). stdin: one "beforeTicks afterTicks deviceTicks" line per bracket.
 * stdout: fit samplesUsed deviceNsPerTick offsetLowNs offsetHighNs sharedTimeBase timestampShiftTicks */
#define _POSIX_C_SOURCE 200809L
#define WARPTRACE_IMPLEMENTATION
#include "warptrace.h"

int main(int argc, char **argv) {
  uint64_t before[16], after[16], device[16];
  unsigned long long b, a, d;
  uint32_t n = 0;
  while (n < 16 && scanf("%llu %llu %llu", &b, &a, &d) == 3) before[n] = b, after[n] = a, device[n] = d, n++;
  wtClockCheck c;
  wtFitClockSamples(before, after, device, n, argc > 1 ? atof(argv[1]) : 1.0, &c);
  printf("%d %u %.12g %.17g %.17g %d %lld\n", (int)c.fit, c.samplesUsed, c.deviceNsPerTick, c.offsetLowNs, c.offsetHighNs,
         (int)c.sharedTimeBase, (long long)c.timestampShiftTicks);
  return 0;
}
