// warptrace_marks.glsl: wtMark(id), a point the warp passed between wtBegin and
// wtEnd (part of warptrace.glsl, which includes it at its end; not for including
// on its own). Without WT_ENABLE, or with a bench WT_VARIANT, it compiles to nothing.
//
// A mark is a 32-byte record in the trace buffer (shared-schema/README.md
// "Marks", WT_MARK_WORD_*): stage field WT_STAGE_MARK, the clock now, the warp's
// start clock (which record it belongs to: the one whose CLOCK_START it equals),
// the id, the live lanes, the SM, slot, flags and draw id as the record has them,
// and the mark's number within the invocation (SEQUENCE). The lowest live lane
// of the lanes that reach it together writes it (fragment: helper lanes neither
// write nor count), or every invocation with WT_SUBGROUP 0. Ids of your own stay
// below 2^24 (the instrumenter's carry a WT_MARK_KIND_* in the top byte). An
// invocation writes at most WT_MAX_MARKS marks: later calls write nothing, so a
// mark in a long loop shows its first iterations. After wtAfterReorder the marks
// name the RAYGEN_REORDERED record (wtBegin restarted the start clock).
#ifndef WARPTRACE_MARKS_GLSL
#define WARPTRACE_MARKS_GLSL

#if !defined(WT_ENABLE) || WT_VARIANT != WT_VARIANT_RECORD
#define wtMark(id)
#else
uint wtMarks_ = 0u;  // marks this invocation wrote: the next one's SEQUENCE

void wtMark(uint id) {
  if (!wtOn_) return;  // a warp that does not record writes no marks either
  uint now = wtClock_();
  // Lanes past their bound leave before the ballot: the mark's lanes are those that write it.
  if (wtMarks_ >= WT_MAX_MARKS) return;
  uint sequence = wtMarks_;
  wtMarks_ = sequence + 1u;
  uint ids = wtSmSlot_() | (WT_STAGE_MARK << WT_IDS_STAGE_SHIFT) | (WT_RECORD_FLAGS_ << WT_IDS_FLAGS_SHIFT);
  bool leader;
  uvec2 mask = wtLiveMask_(leader);
  if (leader) {
    uint slot = atomicAdd(wtCount, 1u);
    wtStore_(slot, uvec4(now, wtStart_, id, mask.y), uvec4(ids, wtDrawId, sequence, mask.x));
  }
}
#endif

#endif // WARPTRACE_MARKS_GLSL
