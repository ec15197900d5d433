extension Muxer {
    /// `options` completed with what this output asks of a video encoder: codec set-up in the
    /// header where the container keeps it there (MP4, MKV, FLV), a keyframe at every HLS segment
    /// start, and on a live stream (FLV) one every 2 s unless told otherwise — a stream is joined,
    /// and resumed after a reconnection, at a keyframe.
    public func videoEncoderOptions(_ options: VideoEncoderOptions) -> VideoEncoderOptions {
        var options = options
        options.globalHeader = wantsGlobalHeader
        if container == .hls, options.keyframeTimeInterval == nil { options.keyframeTimeInterval = self.options.hls.segmentDuration }
        if container == .flv, options.keyframeTimeInterval == nil, options.keyframePictureInterval == nil { options.keyframeTimeInterval = .seconds(2) }
        return options
    }
}
