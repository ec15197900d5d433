import AVPipeline

/// `encode` of an input with pictures into a container that holds them: the video encoded (or
/// copied) and the audio encoded, through one `Muxer` (or, for `.h264`/`.h265`, the pictures alone
/// as an Annex B stream).
struct MovieEncodeJob: Sendable {
    let input: String
    let output: String
    let container: Container
    let video: TranscodePlan.VideoWork
    let audio: TranscodePlan.AudioWork
    /// The one audio track to encode; nil: every one.
    let audioTrack: Int?
    /// Whether the subtitle tracks are kept (copied, or converted to the text format the container holds).
    var subtitles = true
    let start: MediaTime?
    let duration: MediaTime?
    let overwrite: Bool
    let hls: HLSOptions
    let keepsMetadata: Bool
    /// `--metadata` settings: key → value (an empty value removes the tag).
    let tagSettings: [String: String]
    /// What is done with a rotated video's pictures (`--autorotate`, `--no-autorotate`).
    var orientation: TranscodePlan.Orientation = .automatic
    /// Written no faster than real time (a stream to the network).
    var realtime = false
    /// How a network output is connected, reconnected and copied.
    var network = NetworkOptions()

    func run(_ demuxer: Demuxer) async throws {
        try ensureStart(start, within: demuxer.info)
        var options = Muxer.Options(container: container, overwrite: overwrite, realtime: realtime, keepsTrackMetadata: keepsMetadata,
                                    hls: hls, network: network, liveInput: demuxer.isLive)
        let plan = try TranscodePlan(info: demuxer.info, container: container, video: video, audio: audio,
                                     audioTrack: audioTrack, subtitles: subtitles, start: start, duration: duration,
                                     hls: options.hlsAsWritten, orientation: orientation)
        options.timelineOrigin = plan.timelineOrigin
        if keepsMetadata {
            options.metadata = demuxer.info.metadata
            options.chapters = demuxer.info.chapters
            options.coverArt = demuxer.coverArt
        }
        options.metadata = options.metadata.merging(tagSettings) { $1 }.filter { !$0.value.isEmpty }
        options.attachments = plan.copied.attachments(of: demuxer)
        if !plan.leftOut.isEmpty { printNotice("not in \(output): \(plan.leftOut.joined(separator: "; "))") }
        if !plan.copied.conversionsText.isEmpty {
            printNotice("\(container.rawValue.uppercased()) cannot hold these subtitles as they are; converted: \(plan.copied.conversionsText.joined(separator: "; "))")
        }
        let total = expectedDuration(demuxer.info)
        let rate = plan.video.flatMap { video -> Double? in
            var fps = video.track.frameRate
            if case .encode(let settings) = video.work, let asked = settings.frameRate { fps = asked }
            return fps.map { Double($0.numerator) / Double($0.denominator) }
        }
        let progress = ProgressLine(total: total, pictureRate: rate)
        if container == .h264 || container == .hevc {
            try await writeElementaryStream(demuxer, plan: plan, progress: progress)
            return
        }
        let muxer = try Muxer(path: output, options: options)
        let made = try muxer.addTracks(of: demuxer, transcoding: plan, label: input)
        for notice in made.videoNotices { printNotice("\(output): \(notice)") }
        let summary = try await muxer.run(progress: SegmentAllocation.progress(for: container, progress.updates))
        progress.finish(at: summary.duration)
        reportLiveEnd(demuxer, input: input)
        reportTruncations(demuxer.truncations, input: input)
    }

    /// The pictures alone, encoded, as a raw Annex B stream with parameter sets before every keyframe.
    private func writeElementaryStream(_ demuxer: Demuxer, plan: TranscodePlan, progress: ProgressLine) async throws {
        guard case .encode(let options)? = plan.video?.work else {
            throw AVPipelineError.invalidOption(name: "--video-codec", value: "copy",
                                                reason: "a raw .h264/.h265 output is encoded here; copy a stream to one with avpipe demux")
        }
        let codec = container == .h264 ? Codec.h264 : Codec.hevc
        if let written = try? TranscodePlan.codec(ofEncoder: options.encoder), written != codec {
            throw AVPipelineError.unsupportedCodec("a .\(container == .h264 ? "h264" : "h265") file holds \(codec), not what '\(options.encoder)' writes (\(written))")
        }
        let (encoder, notices) = try plan.encodedVideo(from: demuxer)
        for notice in notices { printNotice("\(output): \(notice)") }
        let summary = try await encoder.writeRawVideo(to: output, overwrite: overwrite, progress: progress.updates)
        progress.finish(at: summary.duration)
        reportTruncations(demuxer.truncations, input: input)
    }

    /// How long the output will be: the part asked for, else the input's length after `start`.
    private func expectedDuration(_ info: MediaInfo) -> MediaTime? {
        let remaining = info.duration.map { $0.seconds - (start?.seconds ?? 0) }
        return [remaining, duration?.seconds].compactMap { $0 }.min().map { MediaTime(seconds: max($0, 0)) }
    }
}
