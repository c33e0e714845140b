// warptrace_bench.glsl: the cost-breakdown variants of bench/ (WT_VARIANT other
// than WT_VARIANT_RECORD, see warptrace_variants.glsl): their prologue and
// epilogue (part of warptrace.glsl, which includes it before wtBegin; not for
// including on its own). None of them is what a capture ships.
#ifndef WARPTRACE_BENCH_GLSL
#define WARPTRACE_BENCH_GLSL

#if WT_VARIANT != WT_VARIANT_RECORD

#if WT_VARIANT == WT_VARIANT_NAIVE48
uint64_t wtStart64_, wtStartDevice64_;
#endif
#if WT_VARIANT == WT_VARIANT_EARLY
uint wtSlot_;
#endif

// What wtBegin does past the start clock.
void wtBenchBegin_() {
#if WT_VARIANT == WT_VARIANT_NAIVE48
  wtStart64_ = clockARB();
  wtStartDevice64_ = clockRealtimeEXT();
#endif
#if WT_VARIANT == WT_VARIANT_EARLY
#if WT_SUBGROUP
  uint slot = 0u;
  if (subgroupElect()) slot = atomicAdd(wtCount, 1u);
  wtSlot_ = subgroupBroadcastFirst(slot);
#else
  wtSlot_ = atomicAdd(wtCount, 1u);
#endif
#endif
#if WT_FRONT_
  wtFrontBegin_();
#endif
}

// wtEnd of every variant but the record.
void wtBenchEnd_(uint stage, uint customId) {
#if WT_FRONT_
  wtFrontEnd_(stage, customId);
  return;
#endif
#if WT_VARIANT == WT_VARIANT_NAIVE48
  uint64_t end64 = clockARB();
  uint64_t endDevice64 = clockRealtimeEXT();
#elif WT_SUBGROUP_CLOCK && WT_DEVICE_CLOCK && (WT_VARIANT == WT_VARIANT_DEVFIRST || WT_VARIANT == WT_VARIANT_DEVFIRST_DEP)
  uint device = wtDeviceClock_();
  uint end = wtClock_();
#else
  uint end = wtClock_();
#if WT_VARIANT >= WT_VARIANT_CLOCKS && !(defined(WT_BENCH_NO_DEVICE_CLOCK) && WT_BENCH_NO_DEVICE_CLOCK)
  uint device = wtDeviceClock_();
#else
  uint device = 0u;
#endif
#endif

#if WT_VARIANT == WT_VARIANT_CLOCK || WT_VARIANT == WT_VARIANT_CLOCKS
  wtKeep_(end - wtStart_ + device);
#elif WT_VARIANT == WT_VARIANT_STORE_ONLY
  wtRecords[0] = uvec4(wtStart_, end, device, stage);
#elif WT_VARIANT == WT_VARIANT_HELPER
  wtKeep_(end - wtStart_ + device + (wtLive_() ? 1u : 0u));
#elif WT_VARIANT == WT_VARIANT_SMID
  wtKeep_(end - wtStart_ + device + wtSmSlot_());
#elif WT_VARIANT == WT_VARIANT_LEAN
  // Only the start clock and the ballot are live into the leader's branch.
#if WT_SUBGROUP
  uvec4 ballot = subgroupBallot(wtLive_());
  if (wtLive_() && subgroupBallotFindLSB(ballot) == gl_SubgroupInvocationID) {
#else
  uvec4 ballot = uvec4(1u, 0u, 0u, 0u);
  if (wtLive_()) {
#endif
    uint slot = atomicAdd(wtCount, 1u);
    uint ids = wtSmSlot_() | (stage << WT_IDS_STAGE_SHIFT) | (WT_RECORD_FLAGS_ << WT_IDS_FLAGS_SHIFT);
    wtStore_(slot, uvec4(wtStart_, end, device, ballot.y), uvec4(ids, wtDrawId, customId, ballot.x));
  }
#else
#if WT_VARIANT == WT_VARIANT_BALLOT_NOSM
  uint ids = (WT_UNKNOWN_SM | (WT_UNKNOWN_SLOT << WT_IDS_SLOT_SHIFT)) | (stage << WT_IDS_STAGE_SHIFT) | (WT_RECORD_FLAGS_ << WT_IDS_FLAGS_SHIFT);
#else
  uint ids = wtSmSlot_() | (stage << WT_IDS_STAGE_SHIFT) | (WT_RECORD_FLAGS_ << WT_IDS_FLAGS_SHIFT);
#endif
#if WT_SUBGROUP && (WT_VARIANT == WT_VARIANT_BALLOT_ANY || WT_VARIANT == WT_VARIANT_RECORD_ANY || WT_VARIANT == WT_VARIANT_RECORD_ANY_POS)
  uvec4 ballot = subgroupBallot(true);
  bool leader = subgroupElect();
  uvec2 mask = ballot.xy;
#else
  bool leader;
  uvec2 mask = wtLiveMask_(leader);
#endif
#if WT_POSITION_STAGE_
  // Word 3 holds the position instead of lanes 32..63 (none at 32 lanes or fewer), flagged.
#if WT_VARIANT == WT_VARIANT_QUADPOS || WT_VARIANT == WT_VARIANT_RECORD_ANY_POS
  uint position = wtPositionAllLanes_();
#else
  uint position = wtPosition_();
#endif
  wtPutPosition_(position, ids, mask.y);
#endif

#if WT_VARIANT == WT_VARIANT_BALLOT || WT_VARIANT == WT_VARIANT_BALLOT_ANY || WT_VARIANT == WT_VARIANT_BALLOT_NOSM
  wtKeep_(end - wtStart_ + device + mask.x + (leader ? ids : 0u));
#elif WT_VARIANT == WT_VARIANT_ATOMIC
  if (leader) {
    uint slot = atomicAdd(wtCount, 1u);
    wtKeep_(slot + end - wtStart_ + device + mask.x + ids);
  }
#elif WT_VARIANT == WT_VARIANT_RECORD_ANY || WT_VARIANT == WT_VARIANT_RECORD_ANY_POS || WT_VARIANT == WT_VARIANT_DEVFIRST || WT_VARIANT == WT_VARIANT_QUADPOS || WT_FRONT_
  if (leader) {
    uint slot = atomicAdd(wtCount, 1u);
    wtStore_(slot, uvec4(wtStart_, end, device, mask.y), uvec4(ids, wtDrawId, customId, mask.x));
  }
#elif WT_VARIANT == WT_VARIANT_HDRCAP
  if (leader) {
    uint slot = atomicAdd(wtCount, 1u);
    if (slot < wtCapacity) {
      wtRecords[2u * slot] = uvec4(wtStart_, end, device, mask.y);
      wtRecords[2u * slot + 1u] = uvec4(ids, wtDrawId, customId, mask.x);
    }
  }
#elif WT_VARIANT == WT_VARIANT_NOATOMIC
  if (leader) wtStore_(wtStart_ & 0xfffffu, uvec4(wtStart_, end, device, mask.y), uvec4(ids, wtDrawId, customId, mask.x));
#elif WT_VARIANT == WT_VARIANT_RED_ONLY
  if (leader) {
    atomicAdd(wtCount, 1u);
    wtStore_(wtStart_ & 0xfffffu, uvec4(wtStart_, end, device, mask.y), uvec4(ids, wtDrawId, customId, mask.x));
  }
#elif WT_VARIANT == WT_VARIANT_SLOT_ATOMIC
  if (leader) {
    // Counters in the x words of records 2^20 + slot; each slot's records in its own 128-record ring below 2^20.
    uint warpSlot = (ids & WT_IDS_SM_MASK) * 64u + ((ids >> WT_IDS_SLOT_SHIFT) & 63u);
    uint n = atomicAdd(wtRecords[2u * ((1u << 20) + warpSlot)].x, 1u);
    wtStore_(((warpSlot & 8191u) << 7) | (n & 127u), uvec4(wtStart_, end, device, mask.y), uvec4(ids, wtDrawId, customId, mask.x));
  }
#elif WT_VARIANT == WT_VARIANT_UBOCAP
  if (leader) {
    uint slot = atomicAdd(wtCount, 1u);
    // Bench: the harness leaves word 12 at 0, so the bound is 2^31 - 1 (never reached), read from a uniform.
    if (slot < (wtDrawWord9_ | 0x7fffffffu)) {
      wtRecords[2u * slot] = uvec4(wtStart_, end, device, mask.y);
      wtRecords[2u * slot + 1u] = uvec4(ids, wtDrawId, customId, mask.x);
    }
  }
#elif WT_VARIANT == WT_VARIANT_NOCHECK
  if (leader) {
    uint slot = atomicAdd(wtCount, 1u);
    wtRecords[2u * slot] = uvec4(wtStart_, end, device, mask.y);
    wtRecords[2u * slot + 1u] = uvec4(ids, wtDrawId, customId, mask.x);
  }
#elif WT_VARIANT == WT_VARIANT_NODRAW
  if (leader) {
    uint slot = atomicAdd(wtCount, 1u);
    wtStore_(slot, uvec4(wtStart_, end, device, mask.y), uvec4(ids, 0u, customId, mask.x));
  }
#elif WT_VARIANT == WT_VARIANT_DEP || WT_VARIANT == WT_VARIANT_DEVFIRST_DEP
  if (leader) {
    // The increment is 1 unless both clocks read all ones at once (never in practice), so the
    // compiler must read both clocks before it may issue the atomic.
    uint slot = atomicAdd(wtCount, (end & device) != 0xffffffffu ? 1u : 0u);
    wtStore_(slot, uvec4(wtStart_, end, device, mask.y), uvec4(ids, wtDrawId, customId, mask.x));
  }
#elif WT_VARIANT == WT_VARIANT_SAMPLED
  // The start clock is uniform in the subgroup, so the whole warp agrees.
  if (leader && (wtStart_ * 0x9e3779b1u) >> 29 == 0u) {
    uint slot = atomicAdd(wtCount, 1u);
    wtStore_(slot, uvec4(wtStart_, end, device, mask.y), uvec4(ids, wtDrawId, customId, mask.x));
  }
#elif WT_VARIANT == WT_VARIANT_SHARDED
  if (leader) {
    // 128 shards of 2^(log2(records) - 7) records; the shard counters live in the last records.
    uint records = uint(wtRecords.length()) >> 1;
    uint shard = (ids & WT_IDS_SM_MASK) & 127u;
    uint regionBits = findMSB(records) - 8;
    uint n = atomicAdd(wtRecords[2u * (records - 1u - shard)].x, 1u) & ((1u << regionBits) - 1u);
    wtStore_((shard << regionBits) + n, uvec4(wtStart_, end, device, mask.y), uvec4(ids, wtDrawId, customId, mask.x));
  }
#elif WT_VARIANT == WT_VARIANT_EARLY
  if (leader) wtStore_(wtSlot_, uvec4(wtStart_, end, device, mask.y), uvec4(ids, wtDrawId, customId, mask.x));
#elif WT_VARIANT == WT_VARIANT_SCALAR
  if (leader) {
    uint slot = atomicAdd(wtCount, 1u);
    if (slot < uint(wtRecords.length()) >> 1) {
      uint k = 2u * slot;
      wtRecords[k].x = wtStart_;
      wtRecords[k].y = end;
      wtRecords[k].z = device;
      wtRecords[k].w = mask.y;
      wtRecords[k + 1u].x = ids;
      wtRecords[k + 1u].y = wtDrawId;
      wtRecords[k + 1u].z = customId;
      wtRecords[k + 1u].w = mask.x;
    }
  }
#elif WT_VARIANT == WT_VARIANT_RECORD16
  if (leader) {
    uint slot = atomicAdd(wtCount, 1u);
    if (slot < uint(wtRecords.length())) wtRecords[slot] = uvec4(wtStart_, end, ids, (wtDrawId << 16) | (customId & 0xffffu));
  }
#elif WT_VARIANT == WT_VARIANT_NAIVE48
  // The first prototype: every lane computes everything, the leader's values
  // are broadcast, twelve narrow stores.
  uint slot = 0u;
  if (leader) slot = atomicAdd(wtCount, 1u);
#if WT_SUBGROUP
  slot = subgroupBroadcastFirst(slot);
  customId = subgroupBroadcastFirst(customId);
#endif
  if (leader && slot < uint(wtRecords.length()) / 3u) {
    uint k = 3u * slot;
    wtRecords[k].x = uint(wtStart64_);
    wtRecords[k].y = uint(wtStart64_ >> 32);
    wtRecords[k].z = uint(end64);
    wtRecords[k].w = uint(end64 >> 32);
    wtRecords[k + 1u].x = uint(wtStartDevice64_);
    wtRecords[k + 1u].y = uint(wtStartDevice64_ >> 32);
    wtRecords[k + 1u].z = uint(endDevice64);
    wtRecords[k + 1u].w = uint(endDevice64 >> 32);
    wtRecords[k + 2u].x = ids;
    wtRecords[k + 2u].y = wtDrawId;
    wtRecords[k + 2u].z = customId;
    wtRecords[k + 2u].w = mask.x;
  }
#else
#error "unknown WT_VARIANT"
#endif
#endif // variants past CLOCKS
}
#endif

#endif // WARPTRACE_BENCH_GLSL
