import ArgumentParser
import AVPipeline

/// `encode`'s video settings, named as ffmpeg names them: which encoder, its quality and rate,
/// keyframes, size and frame rate. One option a line: they read as a table of the encoder's settings.
struct VideoEncodingArguments: ParsableArguments {
    @Flag(help: "Leave the video out (an audio-only output).") var noVideo = false
    @Flag(help: "Leave the audio out.") var noAudio = false
    @Option(help: ArgumentHelp("Video codec: h264, hevc, vp9, av1, copy (no re-encoding), or an FFmpeg encoder by name (libx264, h264_vaapi…); default: h264 (VP9 for .webm, H.265 for .h265/.hevc).", valueName: "codec")) var videoCodec: String?
    @Option(help: ArgumentHelp("Constant quality: 0–51 for H.264/H.265, lower is better (x264's default: 23).", valueName: "n")) var crf: Double?
    @Option(help: ArgumentHelp("Encoder speed/size trade-off (x264: ultrafast … veryslow; default medium, for a recording veryfast with --tune zerolatency).", valueName: "name")) var preset: String?
    @Option(help: ArgumentHelp("Encoder tuning: film, animation, grain, stillimage, zerolatency (no delay, for live)…; default: none, for a recording zerolatency.", valueName: "name")) var tune: String?
    @Option(help: ArgumentHelp("Codec profile: baseline, main, high…", valueName: "name")) var profile: String?
    @Option(help: ArgumentHelp("Average video bit rate in bits per second, or with k/M (2M).", valueName: "rate")) var videoBitrate: BitRateArgument?
    @Option(help: ArgumentHelp("Largest bit rate over the decoder's buffer (VBV), with --bufsize.", valueName: "rate")) var maxrate: BitRateArgument?
    @Option(help: ArgumentHelp("The decoder's buffer (VBV) in bits, or with k/M.", valueName: "size")) var bufsize: BitRateArgument?
    @Option(help: ArgumentHelp("A keyframe at least every N pictures.", valueName: "n")) var gop: Int?
    @Option(help: ArgumentHelp("Most B-frames in a row (0: none).", valueName: "n")) var bframes: Int?
    @Option(help: ArgumentHelp("A constant output frame rate (30, 29.97, 30000/1001): pictures are repeated or dropped to it; default: each picture once at its own time (a raw .h264/.h265, which has no times: the input's rate).", valueName: "rate")) var fps: FrameRateArgument?
    @Option(help: ArgumentHelp("Output width in pixels of the picture as displayed (the height follows its proportions unless given).", valueName: "pixels")) var width: Int?
    @Option(help: ArgumentHelp("Output height in pixels (the width follows unless given).", valueName: "pixels")) var height: Int?
    @Option(help: ArgumentHelp("Pixel layout to encode (yuv420p, yuv444p, yuv420p10le…); default: the input's when the encoder takes it; a recording's yuv420p.", valueName: "name")) var pixelFormat: String?
    @Option(help: ArgumentHelp("Video encoder threads (0: the encoder chooses; 1: the same bytes every run, as ffmpeg -threads 1).", valueName: "n")) var threads: Int?
    @Option(name: .customLong("encoder-option"), parsing: .singleValue,
            help: ArgumentHelp("Any other video encoder option, key=value (x264-params=…, rc-lookahead=20); repeatable.", valueName: "key=value"))
    var encoderOptions: [String] = []

    /// Called by `encode`'s `validate()`: each value in its range, named as the user typed it.
    func check() throws {
        guard !(noVideo && noAudio) else { throw ValidationError("--no-video and --no-audio leave nothing to encode") }
        if let crf, !(0...63).contains(crf) { throw ValidationError("--crf must be between 0 and 63 (got \(crf); x264 and x265 take 0–51)") }
        if let gop, gop < 1 { throw ValidationError("--gop must be at least 1 (got \(gop))") }
        if let bframes, !(0...16).contains(bframes) { throw ValidationError("--bframes must be between 0 and 16 (got \(bframes))") }
        if let threads, !(0...256).contains(threads) { throw ValidationError("--threads must be between 0 and 256 (got \(threads))") }
        for (name, value) in [("--width", width), ("--height", height)] {
            if let value, !(1...16384).contains(value) { throw ValidationError("\(name) must be between 1 and 16384 pixels (got \(value))") }
        }
        if maxrate != nil && bufsize == nil { throw ValidationError("--maxrate needs --bufsize (the buffer the maximum rate is kept over)") }
        if let pixelFormat, PixelFormat(name: pixelFormat) == nil { throw ValidationError("--pixel-format: FFmpeg knows no pixel format '\(pixelFormat)'") }
        for option in encoderOptions where !option.contains("=") || option.hasPrefix("=") {
            throw ValidationError("--encoder-option takes key=value (got '\(option)')")
        }
        if videoCodec == "copy", hasEncoderSettings {
            throw ValidationError("--video-codec copy does not re-encode: drop the video encoder settings")
        }
    }

    var hasEncoderSettings: Bool {
        crf != nil || preset != nil || tune != nil || profile != nil || videoBitrate != nil || maxrate != nil || gop != nil
            || bframes != nil || fps != nil || width != nil || height != nil || pixelFormat != nil || !encoderOptions.isEmpty
    }

    /// What the session does with the video: left out, copied, or encoded with these settings by
    /// the encoder `--video-codec` names (nil: the container's usual one, which the session picks).
    var choice: TranscodeSession.Video {
        if noVideo { return .none }
        if videoCodec == "copy" { return .copy }
        let options = Dictionary(encoderOptions.map { option in
            let equals = option.firstIndex(of: "=")!
            return (String(option[..<equals]), String(option[option.index(after: equals)...]))
        }, uniquingKeysWith: { $1 })
        return .encode(VideoEncoderOptions(preset: preset, tune: tune, profile: profile, crf: crf,
                                           bitRate: videoBitrate?.bitsPerSecond, maxRate: maxrate?.bitsPerSecond,
                                           bufferSize: bufsize?.bitsPerSecond, keyframePictureInterval: gop, bFrames: bframes,
                                           threads: threads, pixelFormat: pixelFormat.flatMap(PixelFormat.init(name:)),
                                           width: width, height: height, frameRate: fps?.rate, encoderOptions: options),
                       codec: videoCodec)
    }

    /// What `record` does with the video going into `container` (the session's choice, resolved).
    func work(into container: Container) throws -> TranscodePlan.VideoWork { try choice.work(into: container) }
}
