/// A pipeline stage that produces buffers when asked: the pull half of every stage.
///
/// A consumer calls `next()` for each buffer; `nil` means end of stream. A stage asks its own
/// upstream only when it needs input, so nothing is produced that nobody asked for and memory stays
/// bounded by construction. Sources are single-pass `AsyncSequence`s (`for try await buffer in
/// source`), owned by one task at a time; they are not `Sendable`.
///
/// The buffer type is the contract between stages: an AAC encoder is a `SampleSource` of
/// `EncodedAudioPacket<AAC>` that needs an upstream of `PCMBuffer`, so wiring it to anything else
/// is a compile-time error.
///
/// One driver: since one task at a time pulls a source, a stage's per-packet state may be declared
/// `@exclusivity(unchecked)` (the stages that do say "one driver" beside it). The runtime's dynamic
/// exclusivity checks, about 80 instructions per access, were a tenth of a copy job's own work.
public protocol SampleSource<Buffer>: AnyObject, AsyncSequence, AsyncIteratorProtocol
where Element == Buffer, AsyncIterator == Self {
    /// The kind of buffer this stage hands out: its type is the contract with the next stage.
    associatedtype Buffer: SampleBuffer

    /// The format every buffer of this source has; known as soon as the stage is built.
    var outputFormat: Buffer.Format { get }

    /// The next buffer, or `nil` at end of stream. Throws `AVPipelineError` (`.cancelled` when the
    /// pulling task is cancelled).
    func next() async throws -> Buffer?
}

extension SampleSource {
    /// The source itself: a source is its own, single-pass iterator.
    public func makeAsyncIterator() -> Self { self }
}

/// Throws `.cancelled` when the current task is cancelled: each stage calls it once per pull, so a
/// cancelled pipeline stops within one buffer.
func checkCancellation() throws(AVPipelineError) {
    if Task.isCancelled { throw .cancelled }
}
