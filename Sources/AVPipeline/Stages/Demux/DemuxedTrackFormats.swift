/// Each medium's track, made from what the container says of it: the one place a demuxed track
/// differs by medium.
extension DemuxedTrack where Codec == AnyAudioCodec {
    convenience init(demuxer: Demuxer, track: TrackInfo) throws(AVPipelineError) {
        var format = EncodedAudioFormat(parameters: demuxer.parameters[track.index], timeBase: track.timeBase)
        format.metadata = track.metadata
        format.presentationEnd = Self.presentationEnd(of: track, in: demuxer.info)
        format.streamStart = track.startTime
        try self.init(demuxer: demuxer, track: track, format: format)
    }

    /// The end an MP4/MOV declares to the sample: its edit list (which FFmpeg turns into the track's
    /// start and duration) or, in files without one, the `iTunSMPB` sample count. Other containers
    /// either trim by themselves (Ogg, Matroska's discard padding) or do not say; so does a fragmented
    /// MP4 whose index lists no samples (its duration adds up the fragments, from wherever they start).
    private static func presentationEnd(of track: TrackInfo, in info: MediaInfo) -> MediaTime? {
        guard info.formatName.hasPrefix("mov,"), track.frameCount != nil, let rate = track.sampleRate else { return nil }
        let start = track.startTime ?? MediaTime(value: 0, timeBase: track.timeBase)
        let edited = track.duration.map { start + $0 }
        // The tag describes the file's one audio track.
        let tagged = info.audioTracks.count != 1 ? nil : info.metadata["iTunSMPB"].flatMap(GaplessInfo.init(iTunSMPB:))
            .map { start.converted(to: Rational(1, Int32(rate))) + MediaTime(value: $0.validSamples, timeBase: Rational(1, Int32(rate))) }
        return [edited, tagged].compactMap { $0 }.min()
    }
}

extension DemuxedTrack where Codec == AnyVideoCodec {
    convenience init(demuxer: Demuxer, track: TrackInfo) throws(AVPipelineError) {
        let parameters = demuxer.parameters[track.index]
        var format = EncodedVideoFormat(parameters: parameters, timeBase: track.timeBase, frameRate: track.frameRate,
                                        framing: NALFraming.detect(codec: track.codec, extradata: parameters.extradata))
        format.metadata = track.metadata
        format.displayMatrix = track.displayMatrix
        format.sampleAspectRatio = track.sampleAspectRatio
        format.averageFrameRate = track.averageFrameRate
        try self.init(demuxer: demuxer, track: track, format: format)
    }
}

extension DemuxedTrack where Codec == AnySubtitleCodec {
    convenience init(demuxer: Demuxer, track: TrackInfo) throws(AVPipelineError) {
        var format = EncodedSubtitleFormat(parameters: demuxer.parameters[track.index], timeBase: track.timeBase)
        format.metadata = track.metadata
        try self.init(demuxer: demuxer, track: track, format: format)
    }
}
