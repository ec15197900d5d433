extension TranscodeSession {
    /// An input with pictures into a container that holds them: the video encoded (or copied) and
    /// the audio encoded, through one `Muxer` (or, for `.h264`/`.h265`, the pictures alone as an
    /// Annex B stream).
    func runMovie(_ demuxer: Demuxer, _ context: Context) async throws -> TranscodeSummary {
        try TranscodeMessages.ensureStart(options.start, within: demuxer.info)
        var muxerOptions = Muxer.Options(container: container)
        (muxerOptions.overwrite, muxerOptions.realtime, muxerOptions.keepsTrackMetadata) = (options.overwrite, context.realtime, options.keepsMetadata)
        (muxerOptions.hls, muxerOptions.network, muxerOptions.liveInput) = (options.hls, context.network, demuxer.isLive)
        let plan = try TranscodePlan(info: demuxer.info, container: container, video: try options.video.work(into: container),
                                     audio: audioWork, audioTrack: options.audio.track, subtitles: options.subtitles,
                                     start: options.start, duration: options.duration, hls: muxerOptions.hlsAsWritten,
                                     orientation: options.orientation)
        muxerOptions.timelineOrigin = plan.timelineOrigin
        if options.keepsMetadata {
            muxerOptions.metadata = demuxer.info.metadata
            muxerOptions.chapters = demuxer.info.chapters
            muxerOptions.coverArt = demuxer.coverArt
        }
        muxerOptions.metadata = muxerOptions.metadata.merging(options.tags) { $1 }.filter { !$0.value.isEmpty }
        muxerOptions.attachments = plan.copied.attachments(of: demuxer)
        if !plan.leftOut.isEmpty { context.send(.notice("not in \(output): \(plan.leftOut.joined(separator: "; "))")) }
        if !plan.copied.conversionsText.isEmpty {
            context.send(.notice("\(container.rawValue.uppercased()) cannot hold these subtitles as they are; converted: \(plan.copied.conversionsText.joined(separator: "; "))"))
        }
        let rate = plan.video.flatMap { video -> Double? in
            var fps = video.track.frameRate
            if case .encode(let settings) = video.work, let asked = settings.frameRate { fps = asked }
            return fps.map { Double($0.numerator) / Double($0.denominator) }
        }
        let meter = context.meter(total: expectedDuration(demuxer.info), pictureRate: rate)
        if container == .h264 || container == .hevc {
            return try await writeElementaryStream(demuxer, plan: plan, meter: meter, context)
        }
        let muxer = try Muxer(path: output, options: muxerOptions)
        let made = try muxer.addTracks(of: demuxer, transcoding: plan, label: input, stop: stopSwitch)
        for notice in made.videoNotices { context.send(.notice("\(output): \(notice)")) }
        let summary = try await muxer.run(progress: meter.map { $0.update })
        let stopped = stopSwitch.isStopped
        meter?.finish(at: summary.duration, complete: !stopped)
        context.send(TranscodeMessages.liveEnd(demuxer, input: input))
        context.send(TranscodeMessages.truncations(demuxer.truncations, input: input))
        return TranscodeSummary(output: output, container: container, duration: summary.duration, stopped: stopped)
    }

    /// The audio work of a movie: AAC (Opus in WebM), or none.
    private var audioWork: TranscodePlan.AudioWork {
        let audio = options.audio
        guard audio.isEnabled else { return .none }
        if container == .webm { return .encoder("libopus", bitRate: audio.bitRate) }
        var parallel = audio.parallel
        if parallel.jobs == 0 { parallel.jobs = 1 }  // segments need an audio-only input
        return .aac(AudioEncoderOptions(bitRate: audio.bitRate, sampleRate: audio.sampleRate, quality: audio.quality, parallel: parallel),
                    channels: audio.channels)
    }

    /// The pictures alone, encoded, as a raw Annex B stream with parameter sets before every keyframe.
    private func writeElementaryStream(_ demuxer: Demuxer, plan: TranscodePlan, meter: TranscodeProgressMeter?,
                                       _ context: Context) async throws -> TranscodeSummary {
        guard case .encode(let settings)? = plan.video?.work else {
            throw AVPipelineError.invalidOption(name: "--video-codec", value: "copy",
                                                reason: "a raw .h264/.h265 output is encoded here; copy a stream to one with avpipe demux")
        }
        let codec = container == .h264 ? Codec.h264 : Codec.hevc
        if let written = try? TranscodePlan.codec(ofEncoder: settings.encoder), written != codec {
            throw AVPipelineError.unsupportedCodec("a .\(container == .h264 ? "h264" : "h265") file holds \(codec), not what '\(settings.encoder)' writes (\(written))")
        }
        let (encoder, notices) = try plan.encodedVideo(from: demuxer, stop: stopSwitch)
        for notice in notices { context.send(.notice("\(output): \(notice)")) }
        let summary = try await encoder.writeRawVideo(to: output, overwrite: options.overwrite, progress: meter.map { $0.update })
        let stopped = stopSwitch.isStopped
        meter?.finish(at: summary.duration, complete: !stopped)
        context.send(TranscodeMessages.truncations(demuxer.truncations, input: input))
        return TranscodeSummary(output: output, container: container, duration: summary.duration, stopped: stopped)
    }

    /// How long the output will be: the part asked for, else the input's length after `start`.
    private func expectedDuration(_ info: MediaInfo) -> MediaTime? {
        let remaining = info.duration.map { $0.seconds - (options.start?.seconds ?? 0) }
        return [remaining, options.duration?.seconds].compactMap { $0 }.min().map { MediaTime(seconds: max($0, 0)) }
    }
}
