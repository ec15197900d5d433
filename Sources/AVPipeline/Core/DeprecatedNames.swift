// The public names issue 39 ("one vocabulary") replaced, kept as thin forwarding shims so code
// written against the old names (the parallel branches of the same reshape) still compiles, with a
// warning naming the new spelling. The integrator deletes this file once every branch is merged
// and `/work/notes/vocab-renames.sed` has been applied to them.

// MARK: - bitRate everywhere, one audio encoder options shape

/// The former name of `AudioEncoderOptions` (with `encoder` "aac").
@available(*, deprecated, renamed: "AudioEncoderOptions")
public typealias AACEncoderOptions = AudioEncoderOptions

extension AudioEncoderOptions {
    /// The former spelling of `bitRate`.
    @available(*, deprecated, renamed: "bitRate")
    public var bitrate: Int? {
        get { bitRate }
        set { bitRate = newValue }
    }

    /// The former initializer, with `bitrate` spelled as it was.
    @available(*, deprecated, renamed: "init(bitRate:sampleRate:quality:parallel:)")
    public init(bitrate: Int?, sampleRate: Int? = nil, quality: Double? = nil, parallel: ParallelAACEncoding = .init()) {
        self.init(bitRate: bitrate, sampleRate: sampleRate, quality: quality, parallel: parallel)
    }
}

extension AACEncoder {
    /// The former spelling of `bitRate`.
    @available(*, deprecated, renamed: "bitRate")
    public var bitrate: Int { bitRate }

    /// The former spelling of `maximumBitRate(sampleRate:channels:)`.
    @available(*, deprecated, renamed: "maximumBitRate(sampleRate:channels:)")
    public static func maximumBitrate(sampleRate: Int, channels: Int) -> Int {
        maximumBitRate(sampleRate: sampleRate, channels: channels)
    }
}

extension AudioEncoder {
    /// The former initializer: the encoder's name and settings are now `AudioEncoderOptions`.
    @available(*, deprecated, message: "use init(upstream:options:) with AudioEncoderOptions(encoder:bitRate:globalHeader:)")
    public convenience init(upstream: Upstream, encoder name: String, bitrate: Int? = nil, globalHeader: Bool = false) throws {
        try self.init(upstream: upstream, options: AudioEncoderOptions(encoder: name, bitRate: bitrate, globalHeader: globalHeader))
    }
}

extension TranscodeTracks {
    /// The former name of `audioBitRate`.
    @available(*, deprecated, renamed: "audioBitRate")
    public var aacBitRate: Int? { audioBitRate }
}

// MARK: - Keyframe spacing named by its unit

extension VideoEncoderOptions {
    /// The former name of `keyframePictureInterval` (pictures).
    @available(*, deprecated, renamed: "keyframePictureInterval")
    public var keyframeInterval: Int? {
        get { keyframePictureInterval }
        set { keyframePictureInterval = newValue }
    }

    /// The former name of `keyframeTimeInterval` (time).
    @available(*, deprecated, renamed: "keyframeTimeInterval")
    public var keyframeEvery: MediaTime? {
        get { keyframeTimeInterval }
        set { keyframeTimeInterval = newValue }
    }

    /// The former initializer with `keyframeInterval` (and perhaps `keyframeEvery`).
    @available(*, deprecated, message: "keyframeInterval is keyframePictureInterval, keyframeEvery is keyframeTimeInterval")
    public init(encoder: String = "libx264", preset: String? = nil, tune: String? = nil, profile: String? = nil,
                crf: Double? = nil, bitRate: Int? = nil, maxRate: Int? = nil, bufferSize: Int? = nil,
                keyframeInterval: Int?, bFrames: Int? = nil, threads: Int? = nil, pixelFormat: PixelFormat? = nil,
                width: Int? = nil, height: Int? = nil, frameRate: Rational? = nil, keyframeEvery: MediaTime? = nil,
                encoderOptions: [String: String] = [:], globalHeader: Bool = false) {
        self.init(encoder: encoder, preset: preset, tune: tune, profile: profile, crf: crf, bitRate: bitRate, maxRate: maxRate,
                  bufferSize: bufferSize, keyframePictureInterval: keyframeInterval, bFrames: bFrames, threads: threads,
                  pixelFormat: pixelFormat, width: width, height: height, frameRate: frameRate,
                  keyframeTimeInterval: keyframeEvery, encoderOptions: encoderOptions, globalHeader: globalHeader)
    }

    /// The former initializer with `keyframeEvery` (and no `keyframeInterval`).
    @available(*, deprecated, message: "keyframeEvery is keyframeTimeInterval")
    public init(encoder: String = "libx264", preset: String? = nil, tune: String? = nil, profile: String? = nil,
                crf: Double? = nil, bitRate: Int? = nil, maxRate: Int? = nil, bufferSize: Int? = nil,
                bFrames: Int? = nil, threads: Int? = nil, pixelFormat: PixelFormat? = nil,
                width: Int? = nil, height: Int? = nil, frameRate: Rational? = nil, keyframeEvery: MediaTime?,
                encoderOptions: [String: String] = [:], globalHeader: Bool = false) {
        self.init(encoder: encoder, preset: preset, tune: tune, profile: profile, crf: crf, bitRate: bitRate, maxRate: maxRate,
                  bufferSize: bufferSize, bFrames: bFrames, threads: threads, pixelFormat: pixelFormat, width: width,
                  height: height, frameRate: frameRate, keyframeTimeInterval: keyframeEvery, encoderOptions: encoderOptions,
                  globalHeader: globalHeader)
    }
}

// MARK: - MediaTime for every media time

extension VideoFrame {
    /// The former initializer, with times in `format.timeBase` ticks.
    @available(*, deprecated, message: "pass MediaTime(value: ticks, timeBase: format.timeBase)")
    public convenience init(format: VideoFormat, presentationTime: Int64, duration: Int64? = nil) throws {
        try self.init(format: format, presentationTime: MediaTime(value: presentationTime, timeBase: format.timeBase),
                      duration: duration.map { MediaTime(value: $0, timeBase: format.timeBase) })
    }
}

extension Player {
    /// The former jump, by seconds.
    @available(*, deprecated, message: "pass a MediaTime: seek(by: .seconds(10)) or MediaTime(seconds:)")
    public func seek(by seconds: Double) throws {
        try seek(by: MediaTime(seconds: seconds))
    }
}

// MARK: - Statistics named by what they count

extension AudioDecoderStatistics {
    /// The former name of `sampleFrames`.
    @available(*, deprecated, renamed: "sampleFrames")
    public var frames: Int64 { sampleFrames }
}

extension VideoDecoderStatistics {
    /// The former name of `pictures`.
    @available(*, deprecated, renamed: "pictures")
    public var frames: Int64 { pictures }
}

/// The former name of `PlaybackStatistics`.
@available(*, deprecated, renamed: "PlaybackStatistics")
public typealias PlayerStatistics = PlaybackStatistics

/// The former name of `AudioPlaybackStatistics`.
@available(*, deprecated, renamed: "AudioPlaybackStatistics")
public typealias RenderStatistics = AudioPlaybackStatistics

extension PlaybackStatistics {
    /// The former name of `picturesShown`.
    @available(*, deprecated, renamed: "picturesShown")
    public var framesShown: Int { picturesShown }
    /// The former name of `picturesDropped`.
    @available(*, deprecated, renamed: "picturesDropped")
    public var framesDropped: Int { picturesDropped }
    /// The former name of `picturesLate`.
    @available(*, deprecated, renamed: "picturesLate")
    public var framesLate: Int { picturesLate }
}

extension AudioPlaybackStatistics {
    /// The former name of `silentSampleFrames`.
    @available(*, deprecated, renamed: "silentSampleFrames")
    public var silentFrames: Int { silentSampleFrames }
    /// The former name of `playedSampleFrames`.
    @available(*, deprecated, renamed: "playedSampleFrames")
    public var playedFrames: Int { playedSampleFrames }
}
