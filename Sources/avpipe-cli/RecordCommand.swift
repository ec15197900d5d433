import ArgumentParser
import AVPipeline
import Synchronization

/// `avpipe record`: live audio from an input device and, with `--screen` or `--camera`, pictures,
/// encoded as they arrive (a thin layer over `DeviceCapture` and `VideoCapture`). Every output is written under its final name as the audio arrives, so a run
/// killed outright still leaves what was recorded; Ctrl-C or SIGTERM stops the device, completes
/// the file and exits 130/143.
struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record the microphone, and the screen or a camera: AAC (.aac, .m4a, .wav) or H.264 + AAC (.mp4, .mkv, .ts, .m3u8, rtmp://).",
        discussion: """
        Examples: avpipe record --out live.m4a --duration 30
                  avpipe record --out memo.aac --device 'Built-in Microphone' --bitrate 64k --channels 1
                  avpipe record --screen --out screen.mp4 --duration 60
                  avpipe record --region 1280x720+0+0 --fps 30 --no-audio --out part.mkv
                  avpipe record --camera /dev/video0 --video-size 1280x720 --out camera.mp4
                  avpipe record --list-devices
        Pictures and sound are stamped on one clock, so what happens on the screen and what the \
        microphone hears at the same moment stay together. Live pictures are encoded with x264's \
        veryfast preset and zerolatency tune unless --preset/--tune say otherwise; when encoding \
        cannot keep up, the oldest pictures are dropped and counted, never queued without bound.
        An .m4a/.mp4 is written in fragments of --fragment seconds: a killed run leaves a file that \
        plays up to its last fragment (--faststart writes a plain M4A instead, which appears only \
        when complete). An .aac has every frame on disk as soon as it is encoded; a .wav's header \
        sizes are fixed at the end. Ctrl-C stops the recording and completes the file.
        """
    )

    @Option(name: .customLong("out"), help: ArgumentHelp("Output file: .aac (ADTS), .m4a, .mp4, .mkv, .ts, .m3u8 (HLS) or .wav.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("Input device name (see --list-devices); default: the system's.", valueName: "name"))
    var device: String?

    @Option(help: ArgumentHelp("Stop after this long (seconds or hh:mm:ss.xxx); default: until Ctrl-C.", valueName: "time"))
    var duration: TimeArgument?

    @Option(help: ArgumentHelp("AAC bit rate in bits per second, or with k/M (default: as ffmpeg, by the channels: 69k mono, 128k stereo).", valueName: "rate"))
    var bitrate: BitRateArgument?

    @OptionGroup var audioFormat: AudioFormatArguments<Record>

    @Option(help: ArgumentHelp("Audio the capture buffer holds while the encoder or disk is slow, in seconds; past it the oldest is dropped and reported.", valueName: "seconds"))
    var buffer: Double = 4

    @Option(help: ArgumentHelp("Longest M4A/MP4 fragment in seconds (what a killed run can lose).", valueName: "seconds"))
    var fragment: Double = 1

    @Flag(help: "Write a plain (unfragmented) M4A/MP4 with its index first; it appears only when complete.")
    var faststart = false

    @Option(help: ArgumentHelp("Container, when the output's extension does not say it (\(RecordingContainers.choices.map(\.rawValue).joined(separator: ", ")))."))
    var format: FormatArgument<RecordingContainers>?

    @Flag(help: "List the input devices (microphones, screens, cameras) and exit.")
    var listDevices = false

    @OptionGroup var pictures: VideoCaptureArguments
    @OptionGroup var video: VideoEncodingArguments

    @OptionGroup var hls: HLSArguments
    @OptionGroup var network: NetworkOutputArguments
    @OptionGroup var certificates: CertificateArguments
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var logging: LoggingOptions

    var container: Container? {
        if let format { return format.container }
        return RecordingContainers.container(of: output ?? "")
    }

    func validate() throws {
        if listDevices { return }
        guard let output else { throw ValidationError("name the recording: --out FILE (.aac, .m4a, .wav, …)") }
        guard output != OutputPaths.standardOutput else {
            throw ValidationError("record writes a file (a recording to standard output is not supported yet)")
        }
        guard container != nil else {
            let ext = OutputPaths.fileExtension(output)
            throw ValidationError("cannot tell the container from \(ext.isEmpty ? "'\(output)' (no extension)" : "extension '.\(ext)'"): use .aac, .m4a, .mp4, .mkv, .ts, .m3u8 or .wav, or --format")
        }
        try audioFormat.check()
        if let duration, duration.time.value <= 0 { throw ValidationError("--duration must be positive") }
        guard buffer.isFinite, (0.05...60).contains(buffer) else { throw ValidationError("--buffer must be between 0.05 and 60 seconds (got \(buffer))") }
        try network.check(output: output)
        try checkPictures()
        if network.noRealtime { throw ValidationError("--no-realtime: a recording is as fast as its device already") }
        guard fragment.isFinite, (0.01...3600).contains(fragment) else { throw ValidationError("--fragment must be between 0.01 and 3600 seconds (got \(fragment))") }
    }

    /// The picture options make sense only with pictures, and pictures only in a movie container.
    private func checkPictures() throws {
        try pictures.check()
        guard pictures.recordsPictures else {
            if video.hasEncoderSettings || video.videoCodec != nil || video.noAudio || video.noVideo {
                throw ValidationError("the video options need pictures to record: add --screen, --region or --camera")
            }
            return
        }
        if video.noVideo { throw ValidationError("--no-video leaves no pictures: drop --screen/--region/--camera") }
        if video.videoCodec == "copy" { throw ValidationError("--video-codec copy: live pictures must be encoded") }
        if video.noAudio && (device != nil || audioFormat.rate != nil || audioFormat.channels != nil || bitrate != nil) {
            throw ValidationError("--no-audio records no sound: drop the audio options")
        }
        try video.check()
        guard let container, [.mp4, .mov, .mkv, .ts, .hls, .flv].contains(container) else {
            throw ValidationError("pictures go into .mp4, .mov, .mkv, .ts, .m3u8 or an rtmp:// stream (not \(container.map { ".\($0.rawValue)" } ?? "this output"))")
        }
        if let fps = video.fps?.rate, Double(fps.numerator) > 240 * Double(fps.denominator) {
            throw ValidationError("--fps must be at most 240 when capturing")
        }
    }

    func run() async throws {
        if listDevices {
            try await CommandRunner.run(logging: logging) {
                let names = try AudioInputDevices.names()
                if names.isEmpty { printNotice("the audio driver lists no input device") }
                for name in names { printLine(name) }
                // Screens and cameras: what --screen and --camera take.
                for display in VideoCaptureDevice.screens() { printLine("screen \(display) (--screen \(display))") }
                for camera in VideoCaptureDevice.cameras() { printLine("camera \(camera) (--camera \(camera))") }
            }
            return
        }
        let output = output!, options = try sessionOptions()
        let hint = pictures.recordsPictures ? "list the devices with 'avpipe record --list-devices'; --no-audio records pictures alone"
                                            : "list the devices with 'avpipe record --list-devices'"
        let graceful = GracefulStop()
        try await CommandRunner.run(logging: logging, graceful: graceful) {
            let session = try RecordingSession(output: output, options: options)
            // The first Ctrl-C or SIGTERM stops the devices; the file is completed, then the run
            // ends as interrupted.
            graceful.install { session.stop() }
            let statusLine = RecordStatusLine()
            // The first status comes once the devices are open: a microphone that fails before
            // it could not be opened, and the way out is added.
            let opened = Atomic<Bool>(false)
            do {
                _ = try await session.run { event in
                    switch event {
                    case .status(let status):
                        opened.store(true, ordering: .relaxed)
                        statusLine.show(status)
                    case .notice(let text): printNotice(text)
                    case .warning(let text): printWarning(text)
                    }
                }
            } catch AVPipelineError.deviceUnavailable(.audioInput, let reason) where !opened.load(ordering: .relaxed) {
                throw AVPipelineError.deviceUnavailable(.audioInput, reason: reason + " (\(hint))")
            }
            statusLine.finish()
        }
    }

    /// The session's options from the arguments: sound alone, or pictures with the encoder
    /// settings `encode` takes (the session adds the live defaults).
    private func sessionOptions() throws -> RecordingSession.Options {
        let microphone = DeviceCapture.Options(device: device, sampleRate: audioFormat.rate, channelCount: audioFormat.channels, bufferDuration: buffer)
        var options = RecordingSession.Options(microphone: microphone, audioBitRate: bitrate?.bitsPerSecond, fragmentDuration: MediaTime(seconds: fragment),
                                               faststart: faststart, hls: hls.options,
                                               network: network.options(for: output!, certificates: certificates.check),
                                               overwrite: outputOptions.overwrite, duration: duration?.time, container: container)
        guard let device = pictures.device else { return options }
        guard case .encode(let encoding) = try video.work(into: container!) else { return options }
        if video.noAudio { options.microphone = nil }
        // --fps is the rate asked of the device; the pictures keep the times they were captured at.
        options.pictures = VideoCapture.Options(device: device, frameRate: video.fps?.rate ?? Rational(30, 1), size: pictures.size)
        options.videoEncoding = encoding
        return options
    }
}

/// `record`'s `--rate` and `--channels` ask the device for them (libswresample converts when it cannot).
extension Record: AudioFormatHelp {
    static var audioFormatHelp: AudioFormatText {
        AudioFormatText(rate: "Sample rate in Hz (default: the device's).", channels: "Channel count (default: the device's).",
                        rates: 8_000...384_000, rateUnit: " Hz")
    }
}
