internal import CFFmpeg
internal import CFFmpegLoader

/// How one capture device is opened through libavdevice: which demuxer (`x11grab`, `v4l2`), the
/// name it takes (a display, a device node) and its options (frame rate, size). Devices are
/// demuxers, so a device is read as a file is, through `InputContext`.
public struct DeviceOpening: Sendable {
    /// What kind of device it is (for errors).
    public let kind: DeviceKind
    /// The libavdevice demuxer.
    public let demuxer: String
    /// What the demuxer opens: `:0.0+X,Y` for x11grab, `/dev/videoN` for v4l2.
    public let name: String
    /// Demuxer options; one it does not take is an error naming it.
    public let options: [String: String]
    /// The device as errors name it.
    public let label: String

    /// The device `name` of kind `kind`, opened by libavdevice's `demuxer` with `options`, named
    /// `label` in errors.
    public init(kind: DeviceKind, demuxer: String, name: String, options: [String: String], label: String) {
        self.kind = kind
        self.demuxer = demuxer
        self.name = name
        self.options = options
        self.label = label
    }

    /// Opens the device into `context` (allocated by the caller; freed by FFmpeg if this fails).
    func open(_ context: inout UnsafeMutablePointer<AVFormatContext>?) throws(AVPipelineError) -> UnsafeMutablePointer<AVFormatContext> {
        // libavdevice's demuxers are found by name only once registered; libavdevice itself is
        // loaded then, not at start-up (see avp_ffmpeg_register_devices).
        guard avp_ffmpeg_register_devices() == 0 else {
            throw .deviceUnavailable(kind, reason: "libavdevice cannot be loaded (install it: scripts/setup.sh installs libavdevice-dev)")
        }
        guard let format = av_find_input_format(demuxer) else {
            throw .deviceUnavailable(kind, reason: "this FFmpeg has no '\(demuxer)' input (libavdevice was built without it)")
        }
        let kind = kind, name = name, label = label
        try withDictionary(options) { dictionary throws(AVPipelineError) in
            let (outcome, logged) = FFmpegLog.explaining { () -> Int32 in avformat_open_input(&context, name, format, dictionary) }
            let rc = (try? outcome.get()) ?? avp_error_einval()
            guard rc >= 0 else {
                if rc == avp_error_exit() { throw .cancelled }
                if rc == avp_error_enomem() { throw .outOfMemory }
                throw .deviceUnavailable(kind, reason: "\(label): \(logged ?? ffmpegErrorText(rc))")
            }
        }
        return try allocated(context)
    }
}
