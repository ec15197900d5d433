// Chaining helpers: each is constrained to the buffer type its stage accepts, so
// `capture.encodeAAC().writeADTS(to:)` compiles and `capture.writeADTS(to:)` does not.

extension SampleSource where Buffer == PCMBuffer {
    /// Encodes this PCM to AAC-LC with FFmpeg's native `aac` (`AACEncoder`): `encodeAudio(_:)` with
    /// the packets typed as AAC, which AAC-only stages (`writeADTS`) take.
    public func encodeAAC(_ options: AudioEncoderOptions = .init()) throws -> AACEncoder<Self> {
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
    /// Writes this encoded audio stream to a gapless MP4/M4A file (`MP4Writer`, faststart).
    @discardableResult
    public func writeMP4<C: AudioCodecKind>(to path: String, brand: MP4Brand = .mp4, overwrite: Bool = false,
                                            metadata: [String: String] = [:], coverArt: CoverArt? = nil,
                                            progress: ((MediaTime) -> Void)? = nil) async throws -> WriteSummary
    where Buffer == EncodedAudioPacket<C> {
        try await MP4Writer(upstream: self, path: path, brand: brand, overwrite: overwrite, metadata: metadata, coverArt: coverArt)
            .run(progress: progress)
    }
}
