// warptrace_front.glsl: the prologue-heavy bench variants (WT_VARIANT_FRONT,
// WT_VARIANT_FRONT_STORE; part of warptrace.glsl, not for including on its
// own). wtBegin takes the live-lane ballot, elects the leader, computes the
// screen position and allocates the slot, so the atomic's latency and the
// reductions overlap the shader; wtEnd reads the clocks and stores. FRONT_STORE
// also stores the record's second half (ids, draw id, custom id, mask) in
// wtBegin, with the custom id known at the start (WT_FRONT_CUSTOM_ID), leaving
// one 16-byte store at the end. The mask is the lanes live at the start.
#ifndef WARPTRACE_FRONT_GLSL
#define WARPTRACE_FRONT_GLSL

#if WT_FRONT_
#ifndef WT_FRONT_CUSTOM_ID
#if defined(GL_FRAGMENT_SHADER)
#define WT_FRONT_CUSTOM_ID uint(gl_PrimitiveID)
#elif defined(GL_VERTEX_SHADER)
#define WT_FRONT_CUSTOM_ID uint(gl_VertexIndex)
#else
#define WT_FRONT_CUSTOM_ID 0u
#endif
#endif

bool wtLeader_ = false;
uint wtFrontSlot_ = 0xffffffffu;
uvec2 wtMask_;
uint wtIds_;  // without the stage (FRONT: wtEnd's stage goes in)

void wtFrontBegin_() {
  wtIds_ = wtSmSlot_() | (WT_RECORD_FLAGS_ << WT_IDS_FLAGS_SHIFT);
  wtMask_ = wtLiveMask_(wtLeader_);
#if WT_POSITION_STAGE_
  wtPutPosition_(wtPosition_(), wtIds_, wtMask_.y);
#endif
#if WT_VARIANT != WT_VARIANT_FRONT_LATE
  if (wtLeader_) {
    wtFrontSlot_ = atomicAdd(wtCount, 1u);
#if WT_VARIANT == WT_VARIANT_FRONT_STORE
    if (wtFrontSlot_ < uint(wtRecords.length()) >> 1)
      wtRecords[2u * wtFrontSlot_ + 1u] = uvec4(wtIds_ | (WT_SHADER_STAGE_ << WT_IDS_STAGE_SHIFT), wtDrawId, WT_FRONT_CUSTOM_ID, wtMask_.x);
#endif
  }
#endif
}

void wtFrontEnd_(uint stage, uint customId) {
  uint end = wtClock_();
  uint device = wtDeviceClock_();
#if WT_VARIANT == WT_VARIANT_FRONT_LATE
  // No subgroup operation here: helper lanes need not live to the end of the shader.
  if (wtLeader_) wtFrontSlot_ = atomicAdd(wtCount, 1u);
#endif
  if (wtLeader_ && wtFrontSlot_ < uint(wtRecords.length()) >> 1) {
    wtRecords[2u * wtFrontSlot_] = uvec4(wtStart_, end, device, wtMask_.y);
#if WT_VARIANT != WT_VARIANT_FRONT_STORE
    wtRecords[2u * wtFrontSlot_ + 1u] = uvec4(wtIds_ | (stage << WT_IDS_STAGE_SHIFT), wtDrawId, customId, wtMask_.x);
#endif
  }
}
#endif

#endif // WARPTRACE_FRONT_GLSL
