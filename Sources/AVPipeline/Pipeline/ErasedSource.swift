/// A source whose chain of stages is decided at run time (with or without an end trim, say), as
/// one type that the generic stages after it can take. Costs one dynamic call a buffer, which is
/// nothing beside decoding or encoding it; per-packet copy paths stay concrete.
final class ErasedSource<Buffer: SampleBuffer>: SampleSource {
    private let base: any SampleSource<Buffer>

    init(_ base: any SampleSource<Buffer>) {
        self.base = base
    }

    var outputFormat: Buffer.Format { base.outputFormat }

    func next() async throws -> Buffer? {
        try await base.next()
    }
}
