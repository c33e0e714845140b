/** The module cannot be instrumented as asked (collision, unsupported stage...): nothing is written. */
export class InstrumentError extends Error {
  override readonly name = 'InstrumentError';
}
