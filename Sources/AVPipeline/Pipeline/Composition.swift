// Chaining helpers: each is constrained to the buffer type its stage accepts, so
// `capture.encodeAAC().writeADTS(to:)` compiles and `capture.writeADTS(to:)` does not.

extension SampleSource where Buffer == PCMBuffer {
    /// Encodes this PCM to AAC-LC.
    public func encodeAAC(_ options: AACEncoder<Self>.Options = .init()) throws -> AACEncoder<Self> {
        try AACEncoder(upstream: self, options: options)
    }
}

extension SampleSource where Buffer == EncodedAudioPacket<AAC> {
    /// Writes this AAC stream to a raw `.aac` (ADTS) file; returns once it is complete and in place.
    @discardableResult
    public func writeADTS(to path: String, overwrite: Bool = false,
                          progress: ((MediaTime) -> Void)? = nil) async throws -> WriteSummary {
        try await ADTSWriter(upstream: self, path: path, overwrite: overwrite).run(progress: progress)
    }
}

extension SampleSource {
    /// Writes this encoded audio stream to an MP4/M4A file (through the `Muxer`, faststart).
    @discardableResult
    public func writeMP4<C: AudioCodecKind>(to path: String, brand: MP4Brand = .mp4, overwrite: Bool = false,
                                            progress: ((MediaTime) -> Void)? = nil) async throws -> WriteSummary
    where Buffer == EncodedAudioPacket<C> {
        let muxer = try Muxer(path: path, options: .init(container: brand == .m4a ? .m4a : .mp4, overwrite: overwrite))
        try muxer.addAudio(self)
        let summary = try await muxer.run(progress: progress)
        return WriteSummary(path: summary.path, packets: summary.tracks[0].packets, bytes: summary.tracks[0].bytes,
                            duration: summary.duration)
    }
}
