internal import CFFmpeg

/// What adding a transcode's tracks set up, for the caller to report.
public struct TranscodeTracks {
    /// What the video encoder could not do as asked and did nearest (an odd size for 4:2:0).
    public let videoNotices: [String]
    /// The video encoder's input (size, layout, clock), when the video is encoded.
    public let videoEncoderInput: VideoFormat?
    /// The bit rate the (first) AAC encoder was set to (`AACEncoder.bitRate`), when the audio is AAC-encoded.
    public let audioBitRate: Int?
}

extension Muxer {
    /// Adds the tracks `plan` takes from `demuxer`, each encoded or copied as it says, cut to its
    /// part (a copied track at packets, by decode time; seeking `demuxer` exactly to the part's
    /// start: pictures and samples before it are decoded but not encoded), then its subtitles
    /// (copied or converted; cut to the part too). The video encoder writes its set-up where this
    /// container wants it, and keeps a keyframe at every HLS segment start. (The plan's attachments
    /// go in `Options.attachments`.)
    @discardableResult
    public func addTracks(of demuxer: Demuxer, transcoding plan: TranscodePlan, label: String? = nil) throws -> TranscodeTracks {
        try addTracks(of: demuxer, transcoding: plan, label: label, stop: nil)
    }

    /// `addTracks(of:transcoding:label:)`, each audio and video stream ending early when `stop` is
    /// thrown (a `TranscodeSession` stopped: the file is completed as at a normal end).
    func addTracks(of demuxer: Demuxer, transcoding plan: TranscodePlan, label: String?, stop: StopSwitch?) throws -> TranscodeTracks {
        let label = label ?? demuxer.info.path
        let part = plan.part
        if let part { try demuxer.seek(toStartOf: part) }
        let (from, end) = (part?.from, part?.end)
        var notices: [String] = [], encoderInput: VideoFormat?, audioBitRate: Int?
        if let (track, work) = plan.video {
            if case .encode(let asked) = work {
                let options = videoEncoderOptions(asked)
                let encoder = try demuxer.encodedVideo(track, options: options, end: end,
                                                       metadata: self.options.keepsTrackMetadata ? track.metadata : [:],
                                                       orientation: plan.videoOrientation, stop: stop)
                notices = encoder.notices
                encoderInput = encoder.encoderInputFormat
                try addVideo(encoder, label: label)
            } else {
                let packets = try DemuxedVideoTrack(demuxer: demuxer, track: try demuxer.described(track))
                switch (end, stop) {
                case let (end?, stop?): try addVideo(StopGate(packets.ending(at: end), stop: stop), label: label)
                case let (nil, stop?): try addVideo(StopGate(packets, stop: stop), label: label)
                case let (end?, nil): try addVideo(packets.ending(at: end), label: label)
                case (nil, nil): try addVideo(packets, label: label)
                }
            }
        }
        for (track, work) in plan.audio {
            let track = try demuxer.described(track)
            let packets = try DemuxedAudioTrack(demuxer: demuxer, track: track)
            let tags = self.options.keepsTrackMetadata ? track.metadata : [:]
            func cut() throws -> ErasedSource<PCMBuffer> {
                let pcm = try packets.decodeAudio()
                guard let duration = plan.duration, let from else { return pcm.gated(by: stop) }
                return pcm.ending(after: duration, from: from).gated(by: stop)
            }
            switch work {
            case .aac(let options, let channels):
                let pcm = try cut()
                let request = AudioFormatRequest(sampleFormat: .fltp, sampleRate: options.sampleRate,
                                                 channelLayout: channels.map { .default(channelCount: $0) })
                let encoder = try pcm.resampled(to: request).encodeAAC(options)
                audioBitRate = audioBitRate ?? encoder.bitRate
                try addAudio(encoder, label: label, trackMetadata: tags)
            case .encoder(let name, let bitRate):
                try addAudio(AudioEncoder(upstream: try cut(), options: .init(encoder: name, bitRate: bitRate, globalHeader: wantsGlobalHeader)),
                             label: label, trackMetadata: tags)
            case .copy, .none:
                switch (end, stop) {
                case let (end?, stop?): try addAudio(StopGate(packets.ending(at: end), stop: stop), label: label)
                case let (nil, stop?): try addAudio(StopGate(packets, stop: stop), label: label)
                case let (end?, nil): try addAudio(packets.ending(at: end), label: label)
                case (nil, nil): try addAudio(packets, label: label)
                }
            }
        }
        for track in plan.copied.tracks where track.kind == .subtitle {
            try addSubtitles(of: demuxer, track, plan: plan.copied, label: label,
                             part: plan.start != nil || plan.duration != nil ? (from, end) : nil)
        }
        return TranscodeTracks(videoNotices: notices, videoEncoderInput: encoderInput, audioBitRate: audioBitRate)
    }

    /// Whether this container keeps codec set-up in its header (MP4, MKV, FLV), so encoders must put
    /// it there rather than before each keyframe (what the ffmpeg CLI decides from the same flag).
    var wantsGlobalHeader: Bool {
        guard let format = av_guess_format(container.muxerName, nil, nil) else { return false }
        return format.pointee.flags & avp_fmt_globalheader() != 0
    }
}

extension Demuxer {
    /// `track`'s pictures decoded, ended at `end` (exclusive) and encoded. `orientation.turns`: a
    /// rotated or mirrored track's pictures are turned as its display matrix says and the matrix is
    /// dropped; else they are encoded as stored, with the matrix when `orientation.keepsMatrix`.
    func encodedVideo(_ track: TrackInfo, options: VideoEncoderOptions, end: MediaTime?, metadata: [String: String],
                      orientation: (turns: Bool, keepsMatrix: Bool), stop: StopSwitch? = nil) throws -> VideoEncoder<ErasedSource<VideoFrame>> {
        let track = try described(track)
        let pictures = try DemuxedVideoTrack(demuxer: self, track: track).decodeVideo()
        let trimmed = ErasedSource<VideoFrame>(end.map { pictures.ending(at: $0) } ?? pictures)
        let cut = stop.map { ErasedSource<VideoFrame>(StopGate(trimmed, stop: $0)) } ?? trimmed
        let turns = orientation.turns && (track.rotation != 0 || track.isMirrored)
        let turned = turns ? ErasedSource<VideoFrame>(try cut.converted(VideoConversion(upright: true))) : cut
        return try VideoEncoder(upstream: turned, options: options, displayMatrix: !turns && orientation.keepsMatrix ? track.displayMatrix : nil,
                                metadata: metadata)
    }
}

extension TranscodePlan {
    /// The plan's video alone, encoded, for a raw elementary stream (`.h264`/`.h265`: parameter
    /// sets before every keyframe, since no header holds them); seeks `demuxer` to the part's
    /// start. Also says what the encoder could not do as asked. Throws `.invalidOption` when the
    /// plan copies its video or has none.
    ///
    /// Such a stream has no timestamps: a reader times it by the frame rate its parameter sets
    /// state, which the encoder takes from its clock. So, unless the plan sets a rate, the
    /// pictures are encoded at the track's (ffmpeg's guess, else 25 fps), one a frame period,
    /// repeated or dropped onto that grid as ffmpeg does for a raw output, and never in the
    /// container's clock (Matroska's milliseconds would state 1000 pictures a second).
    public func encodedVideo(from demuxer: Demuxer) throws
        -> (packets: some SampleSource<EncodedVideoPacket<AnyVideoCodec>>, notices: [String]) {
        try encodedVideo(from: demuxer, stop: nil)
    }

    /// `encodedVideo(from:)`, the pictures ending early when `stop` is thrown.
    func encodedVideo(from demuxer: Demuxer, stop: StopSwitch?) throws
        -> (packets: VideoEncoder<ErasedSource<VideoFrame>>, notices: [String]) {
        guard let (track, work) = video, case .encode(var options) = work else {
            throw AVPipelineError.invalidOption(name: "video", value: "copy", reason: "an elementary stream is made by encoding the pictures")
        }
        options.globalHeader = false
        if options.frameRate == nil { options.frameRate = track.frameRate ?? Rational(25, 1) }
        if let part { try demuxer.seek(toStartOf: part) }
        let encoder = try demuxer.encodedVideo(track, options: options, end: part?.end, metadata: [:], orientation: videoOrientation, stop: stop)
        return (encoder, encoder.notices)
    }
}
