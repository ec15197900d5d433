/// One output for an encoded AAC stream: the one place that picks its writer from the container,
/// so a command names where the audio goes and never chooses a writer itself. ADTS goes to the
/// `ADTSWriter`; an M4A/MP4 made from a finished input to the `MP4Writer` (faststart, tags and cover);
/// every other container, and any recording, to the `Muxer`. A new container or a URL output is a
/// new case here, not a new branch in each command.
public struct EncodedAudioOutput: Sendable {
    /// How a live recording is written: what a killed process must still leave behind.
    public struct Recording: Sendable {
        /// Longest M4A/MP4 fragment (what a killed run can lose).
        public var fragment: MediaTime
        /// An M4A/MP4 is written whole with its index first (it appears only when complete)
        /// instead of in fragments.
        public var faststart: Bool

        /// A recording in fragments of `fragment`, or written whole when `faststart`.
        public init(fragment: MediaTime, faststart: Bool = false) {
            self.fragment = fragment
            self.faststart = faststart
        }
    }

    /// The output file (or HLS playlist).
    public var path: String
    /// What `path` is written as: `.adts` or one of the `Muxer`'s containers.
    public var container: Container
    /// Replace an existing file.
    public var overwrite: Bool
    /// Set for a live recording: ADTS frames reach the disk as they are encoded, an M4A/MP4 is
    /// fragmented; nil for audio encoded from a finished input.
    public var recording: Recording?
    /// How an HLS output is cut and published.
    public var hls: HLSOptions
    /// Tags of an M4A/MP4 made from a finished input (ADTS, TS and HLS have no place for them).
    public var metadata: [String: String]
    /// Cover picture of an M4A/MP4 made from a finished input.
    public var coverArt: CoverArt?
    /// How a network output (`rtmp://`, `srt://`, an HLS upload) is connected, reconnected and copied.
    public var network = NetworkOptions()
    /// Written no faster than real time (a file pushed as a live stream); nil decides by the
    /// output, as `Muxer.Options.realtime` does: real time for a live stream (`rtmp://`, `srt://`).
    public var realtime: Bool?

    /// An output of `container` at `path`; the rest as the fields say.
    public init(path: String, container: Container, overwrite: Bool = false, recording: Recording? = nil, hls: HLSOptions = .init(),
                metadata: [String: String] = [:], coverArt: CoverArt? = nil) {
        self.path = path
        self.container = container
        self.overwrite = overwrite
        self.recording = recording
        self.hls = hls
        self.metadata = metadata
        self.coverArt = coverArt
    }

    /// Writes `stream` to the output through the container's writer and returns what was written.
    @discardableResult
    public func write<Upstream: SampleSource>(_ stream: Upstream, progress: ((MediaTime) -> Void)? = nil) async throws -> WriteSummary
    where Upstream.Buffer == EncodedAudioPacket<AAC> {
        if container == .adts {
            return try await ADTSWriter(upstream: stream, path: path, overwrite: overwrite, live: recording != nil).run(progress: progress)
        }
        guard container.isMultiTrack else {
            throw AVPipelineError.unsupportedFormat("encoded AAC goes to .aac (ADTS) or one of \(Container.extensionsText), not \(container.rawValue)")
        }
        guard let recording else {
            if container.isGapless {
                return try await MP4Writer(upstream: stream, path: path, brand: container, overwrite: overwrite, metadata: metadata,
                                           coverArt: coverArt).run(progress: progress)
            }
            return try await mux(stream, options: muxerOptions(container), progress: progress)
        }
        // A recording is written under its final name in fragments, so a killed run keeps all
        // but the last (Matroska and TS are such a series by nature).
        let fragmented = !(recording.faststart && container.isGapless)
        var options = muxerOptions(container)
        options.fragmented = fragmented
        options.fragmentDuration = recording.fragment
        options.liveInput = true
        return try await mux(stream, options: options, progress: progress)
    }

    /// The `Muxer`'s options for `container` as this output's fields say.
    private func muxerOptions(_ container: Container) -> Muxer.Options {
        var options = Muxer.Options(container: container)
        options.overwrite = overwrite
        options.realtime = realtime
        options.hls = hls
        options.network = network
        return options
    }

    private func mux<Upstream: SampleSource>(_ stream: Upstream, options: Muxer.Options,
                                             progress: ((MediaTime) -> Void)?) async throws -> WriteSummary
    where Upstream.Buffer == EncodedAudioPacket<AAC> {
        let muxer = try Muxer(path: path, options: options)
        try muxer.addAudio(stream, label: path)
        let summary = try await muxer.run(progress: progress)
        // Complete: fragments no longer need to protect it, and a regular file can say where the audio lies.
        // A pipe or device was written as a stream: there is nothing to read back and rewrite.
        if options.fragmented, container.isGapless, !StreamOutput.isStream(path), !OutputLocation(path).isURL, let gapless = muxer.gapless {
            try await FragmentedRecording.finish(path: path, container: container, gapless: gapless)
        }
        return WriteSummary(path: summary.path, packets: summary.tracks.first?.packets ?? 0, bytes: summary.tracks.first?.bytes ?? 0,
                            duration: summary.duration)
    }
}
