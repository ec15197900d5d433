#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension TranscodeSession {
    /// Audio alone to AAC-LC, into ADTS, M4A/MP4, MPEG-TS or HLS: a PCM WAV through `FileCapture`
    /// (the capture stage, chunked like a microphone), any other audio through `AudioFileSource`.
    func runAudio(_ context: Context) async throws -> TranscodeSummary {
        let audio = options.audio
        let selectsPart = audio.track != nil || options.start != nil || options.duration != nil
        let capture = options.capture
        var context = context
        // A capture read in real time paces the output itself: `realtime` then only confirms it,
        // and of the outputs only a live URL is paced as well (as a server expects).
        if capture?.realtime == true { context.realtime = options.realtime != false && Self.isLiveStream(output) }
        let captureOptions = FileCapture.Options(chunkFrames: capture?.chunkFrames ?? 1024, realtime: capture?.realtime ?? false,
                                                 inputPolicy: options.demuxer.inputPolicy, strict: options.demuxer.strict)
        // Trying the PCM reader first would consume the start of a pipe that holds anything else,
        // so a pipe is read by the decoder path unless capture options ask for PCM. A URL is never
        // read as a PCM WAV capture: it is not a file, whatever its name ends with.
        let readOnce = !Self.isRegularFile(input)
        if !selectsPart, !readOnce || capture != nil, !location.isURL, let pcm = try Self.capture(input, captureOptions) {
            let summary = try await encodeAudio(pcm, duration: pcm.duration, overlapped: capture == nil,
                                                carrying: carried(pcm.metadata, cover: nil), context)
            context.send(TranscodeMessages.truncations(pcm.truncation.map { [$0] } ?? [], input: input))
            return summary
        }
        if capture != nil {
            throw AVPipelineError.invalidOption(name: "--realtime/--chunk-frames", value: input,
                                                reason: "they apply to PCM WAV input only (read as a capture device would)")
        }
        let source = try AudioFileSource(location, options: AudioFileSource.Options(track: audio.track, start: options.start,
                                                                                   duration: options.duration, demuxer: options.demuxer))
        try TranscodeMessages.ensureStart(options.start, within: source.info)
        let summary = try await encodeAudio(source, duration: source.duration, overlapped: true,
                                            carrying: carried(source.info.metadata, cover: source.coverArt), context)
        context.send(TranscodeMessages.truncations(source.truncations, input: input))
        context.send(TranscodeMessages.skippedPackets(source.decoderStatistics, kind: "audio"))
        return summary
    }

    /// The tags and cover picture the output gets: the input's descriptive tags (unless not kept)
    /// with `options.tags` over them.
    private func carried(_ tags: [String: String], cover: CoverArt?) -> (tags: [String: String], cover: CoverArt?) {
        let kept = options.keepsMetadata ? DescriptiveTags.of(tags) : [:]
        return (kept.merging(options.tags) { $1 }.filter { !$0.value.isEmpty }, options.keepsMetadata ? cover : nil)
    }

    /// `overlapped`: read, decode and convert to the encoder's planar float on the other core, a
    /// bounded number of buffers ahead, while FFmpeg's single-threaded AAC encoder (nearly all the
    /// work) runs here. Off for a paced capture, which imitates a device.
    private func encodeAudio<PCM: SampleSource>(_ pcm: PCM, duration: MediaTime?, overlapped: Bool,
                                                carrying: (tags: [String: String], cover: CoverArt?),
                                                _ context: Context) async throws -> TranscodeSummary where PCM.Buffer == PCMBuffer {
        let (channels, sampleRate) = (options.audio.channels, options.audio.sampleRate)
        // libswresample's default matrix downmixes (5.1 → stereo) or spreads the channels.
        let request = AudioFormatRequest(sampleFormat: overlapped ? .fltp : nil, sampleRate: overlapped ? sampleRate : nil,
                                         channelLayout: channels.map { .default(channelCount: $0) })
        if overlapped {
            return try await encodeAAC(pcm.resampled(to: request).prefetched().gated(by: stopSwitch), duration: duration, carrying: carrying, context)
        } else if channels != nil {
            return try await encodeAAC(pcm.resampled(to: request).gated(by: stopSwitch), duration: duration, carrying: carrying, context)
        } else {
            return try await encodeAAC(pcm.gated(by: stopSwitch), duration: duration, carrying: carrying, context)
        }
    }

    private func encodeAAC<PCM: SampleSource>(_ pcm: PCM, duration: MediaTime?, carrying: (tags: [String: String], cover: CoverArt?),
                                              _ context: Context) async throws -> TranscodeSummary where PCM.Buffer == PCMBuffer {
        let audio = options.audio
        var parallel = audio.parallel
        if options.capture?.realtime == true { parallel.jobs = 1 }  // a paced capture imitates a device
        if parallel.jobs == 0 { parallel.jobs = Self.automaticJobs(duration: duration) }
        let encoder = try pcm.encodeAAC(.init(bitRate: audio.bitRate, sampleRate: audio.sampleRate, quality: audio.quality, parallel: parallel))
        context.send(TranscodeMessages.lowered(requested: audio.bitRate, encoder: encoder))
        let meter = context.meter(total: duration)
        if !container.isGapless, !carrying.tags.isEmpty || carrying.cover != nil {
            let name = container == .adts ? "ADTS" : container == .ts ? "MPEG-TS" : "HLS"
            context.send(.notice("\(output): \(name) has no place for tags or cover art; they are left out (an .m4a keeps them)"))
        }
        var destination = EncodedAudioOutput(path: output, container: container, overwrite: options.overwrite, hls: options.hls,
                                             metadata: carrying.tags, coverArt: carrying.cover)
        destination.network = context.network
        destination.realtime = context.realtime
        let written = try await destination.write(encoder, progress: meter.map { $0.update })
        let stopped = stopSwitch.isStopped
        meter?.finish(at: written.duration, complete: !stopped)
        if let requested = audio.bitRate, !stopped {
            context.send(TranscodeMessages.overshoot(requested: requested, bytes: written.bytes, duration: written.duration))
        }
        return TranscodeSummary(output: output, container: container, duration: written.duration, stopped: stopped)
    }

    /// Parallel AAC jobs when none are asked: one per 30 s of input, up to the core count. Each
    /// encoder after the first costs a warm-up (256 frames, ~6 s of audio, in bit-rate mode), so a
    /// shorter input, or one of unknown length, is encoded sequentially, as ffmpeg does.
    static func automaticJobs(duration: MediaTime?) -> Int {
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        guard cores > 1, let seconds = duration?.seconds, seconds >= 60 else { return 1 }
        return Swift.min(cores, Int(seconds / 30))
    }

    /// The capture stage for a PCM file; nil for any other audio (which the decoder path reads).
    static func capture(_ input: String, _ options: FileCapture.Options) throws -> FileCapture? {
        do {
            return try FileCapture(path: input, options: options)
        } catch AVPipelineError.unsupportedCodec {
            return nil
        }
    }
}
