/*
 * warptrace_metadata.h: the .wtraw's metadata JSON (shared-schema/raw-metadata.ts) and which draws the
 * file holds (wtSetDrawTable, wtSetDrawEndQueries). Separate from the binary writer (warptrace_wtraw.h):
 * this is the text the decoder validates field by field.
 * Part of warptrace.h's implementation, which includes it under WARPTRACE_IMPLEMENTATION; do not include it alone.
 */
#if defined(WARPTRACE_IMPLEMENTED) && !defined(WARPTRACE_METADATA_IMPLEMENTED)
#define WARPTRACE_METADATA_IMPLEMENTED

/* ---- .wtraw writer ---- */

static void wtJsonString_(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

static void wtStageList_(FILE *f, VkShaderStageFlags stages) {
  fputc('[', f);
  int first = 1;
  for (uint32_t i = 0; i < 14; i++) {
    if (!(stages & wtAllStageBits_[i])) continue;
    fprintf(f, "%s\"%s\"", first ? "" : ", ", wtAllStageNames_[i]);
    first = 0;
  }
  fputc(']', f);
}

/* Draws in the file: wtSetDrawTable's when set, else one per wtCmdBeginDraw. */
static uint32_t wtDrawsWritten_(const wtTracer *t) { return t->tableLabels ? t->tableDraws : t->drawCount; }

/* The query pair of draw d: its slot under wtSetDrawTable, else d itself. */
static uint32_t wtQuerySlot_(const wtTracer *t, uint32_t d) { return t->tableSlots ? t->tableSlots[d] : d; }

void wtSetDrawEndQueries(wtTracer *t, const uint32_t *endQueries) { t->tableEndQueries = endQueries; }

void wtSetDrawTable(wtTracer *t, uint32_t drawCount, const char *const *labels, const wtDrawKind *kinds, const uint32_t *querySlots,
                    const char *const *extraJson) {
  int on = labels && kinds && querySlots;
  t->tableDraws = on ? drawCount : 0;
  t->tableLabels = on ? labels : NULL;
  t->tableKinds = on ? kinds : NULL;
  t->tableSlots = on ? querySlots : NULL;
  t->tableExtra = on ? extraJson : NULL;
  if (!on) t->tableEndQueries = NULL;
}

/* Writes the metadata JSON to f; returns 0 or -1. */
static int wtWriteMetadata_(const wtTracer *t, FILE *f, const wtCaptureInfo *info, uint64_t captureStart, int haveStart) {
  const wtCaps *c = &t->caps;
  char when[32];
  time_t now = time(NULL);
  struct tm utc;
#if defined(_WIN32)
  gmtime_s(&utc, &now);
#else
  gmtime_r(&now, &utc);
#endif
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
  fprintf(f, "{\n  \"tool\": ");
  wtJsonString_(f, info && info->tool ? info->tool : "warptrace-vk");
  fprintf(f, ", \"toolVersion\": ");
  wtJsonString_(f, info && info->toolVersion ? info->toolVersion : "0.1.0");
  fprintf(f, ",\n  \"capturedAt\": \"%s\", \"workload\": ", when);
  wtJsonString_(f, info && info->workload ? info->workload : "capture");
  fprintf(f, ",\n  \"parameters\": %s,\n", info && info->parametersJson ? info->parametersJson : "{}");
  if (haveStart) fprintf(f, "  \"captureStartTicks\": \"%llu\",\n", (unsigned long long)captureStart);
  fprintf(f, "  \"device\": {\n    \"name\": ");
  wtJsonString_(f, c->deviceName);
  fprintf(f, ", \"vendor\": ");
  wtJsonString_(f, c->vendor);
  fprintf(f, ", \"vendorId\": %u, \"deviceId\": %u,\n    \"api\": \"vulkan\", \"apiVersion\": \"%u.%u.%u\", \"driverVersion\": ",
          c->vendorId, c->deviceId, VK_API_VERSION_MAJOR(c->apiVersion), VK_API_VERSION_MINOR(c->apiVersion),
          VK_API_VERSION_PATCH(c->apiVersion));
  wtJsonString_(f, c->driverVersionText);
  fprintf(f, ", \"driverName\": ");
  wtJsonString_(f, c->driverName);
  if (c->smCount) fprintf(f, ",\n    \"smCount\": %u, \"warpsPerSm\": %u", c->smCount, c->warpsPerSm);
  else fprintf(f, ",\n    \"smCount\": null, \"warpsPerSm\": null");
  fprintf(f, ", \"subgroupSize\": %u,\n    \"subgroupStages\": ", c->subgroupSize);
  wtStageList_(f, c->subgroupStages);
  fprintf(f, ",\n    \"smBuiltins\": %s, \"smClock\": %s, \"deviceClock\": %s,\n", c->smBuiltins ? "true" : "false",
          c->subgroupClock ? "true" : "false", c->deviceClock ? "true" : "false");
  fprintf(f, "    \"deviceClockNsPerTick\": %.9g, \"timestampPeriodNs\": %.9g, \"smClockRateHz\": null\n  },\n",
          t->clocksChecked ? t->clocks.deviceNsPerTick : 1.0, c->timestampPeriod);
  fprintf(f, "  \"draws\": [");
  for (uint32_t d = 0; d < wtDrawsWritten_(t); d++) {
    static const char *const kinds[3] = {"draw", "dispatch", "trace-rays"};
    fprintf(f, "%s\n    { \"label\": ", d ? "," : "");
    wtJsonString_(f, t->tableLabels ? t->tableLabels[d] : t->labels[d].text);
    fprintf(f, ", \"kind\": \"%s\"", kinds[t->tableKinds ? t->tableKinds[d] : t->labels[d].kind]);
    const wtLabel_ *slot = wtQuerySlot_(t, d) < t->maxDraws ? &t->labels[wtQuerySlot_(t, d)] : NULL;
    if (slot && slot->targetWidth && slot->targetHeight) fprintf(f, ", \"target\": { \"width\": %u, \"height\": %u }", slot->targetWidth, slot->targetHeight);
    if (t->tableExtra && t->tableExtra[d] && t->tableExtra[d][0]) fprintf(f, ", %s", t->tableExtra[d]);
    fprintf(f, " }");
  }
  fprintf(f, "\n  ]");
  if (info && info->overheadFrames > 0) {
    fprintf(f, ",\n  \"overhead\": { \"plainFrameNs\": %.1f, \"tracedFrameNs\": %.1f, \"frames\": %u }", info->plainFrameNs,
            info->tracedFrameNs, info->overheadFrames);
  }
  if (t->clocksChecked) {
    const wtClockCheck *k = &t->clocks;
    static const char *const fits[3] = {"unit-rate", "fitted-rate", "disagree"};
    fprintf(f,
            ",\n  \"clockCheck\": { \"samples\": %u, \"samplesUsed\": %u, \"fit\": \"%s\", \"deviceNsPerTick\": %.9g,"
            " \"bracketNs\": { \"median\": %.0f, \"widest\": %.0f }, \"timestampMinusDeviceNs\": [%.0f, %.0f],"
            " \"sharedTimeBase\": %s, \"timestampShiftTicks\": \"%lld\" }",
            k->samples, k->samplesUsed, fits[k->fit], k->deviceNsPerTick, k->medianBracketNs, k->widestBracketNs, k->offsetLowNs,
            k->offsetHighNs, k->sharedTimeBase ? "true" : "false", (long long)k->timestampShiftTicks);
  }
  if (t->blocks) wtBlocksWriteMetadata_(t, f, (const uint32_t *)((const char *)t->readbackMap + t->traceBytes));
  if (t->rays) wtRaysWriteMetadata_(t, f);
  wtWriteSamplingMetadata_(t, f);
  if (info && info->extraJson && info->extraJson[0]) fprintf(f, ",\n  %s", info->extraJson);
  fprintf(f, "\n}\n");
  return ferror(f) ? -1 : 0;
}

#endif /* WARPTRACE_METADATA_IMPLEMENTED */
