import ArgumentParser
import AVPipeline

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
        if let device = pictures.device {
            try await runMovie(device)
            return
        }
        let job = RecordJob(output: output!, container: container!, overwrite: outputOptions.overwrite,
                            capture: DeviceCapture.Options(device: device, sampleRate: audioFormat.rate, channelCount: audioFormat.channels,
                                                           bufferDuration: buffer, duration: duration?.time),
                            bitrate: bitrate?.bitsPerSecond, faststart: faststart,
                            fragment: MediaTime(seconds: fragment),
                            hls: hls.options, network: network.options(for: output!, certificates: certificates.check))
        let graceful = GracefulStop()
        try await CommandRunner.run(logging: logging, graceful: graceful) {
            try await job.run(graceful: graceful)
        }
    }
}

extension Record {
    /// A recording with pictures: the encoder's settings are `encode`'s, with live defaults.
    private func runMovie(_ device: VideoCaptureDevice) async throws {
        guard case .encode(var encoding) = try video.work(into: container!) else { return }
        let rate = video.fps?.rate ?? Rational(30, 1)
        // --fps is the rate asked of the device; the pictures keep the times they were captured at.
        encoding.frameRate = nil
        if encoding.encoder == "libx264" {
            encoding.preset = encoding.preset ?? "veryfast"
            encoding.tune = encoding.tune ?? "zerolatency"
        }
        let job = RecordMovieJob(
            output: output!, container: container!, overwrite: outputOptions.overwrite,
            microphone: video.noAudio ? nil : DeviceCapture.Options(device: self.device, sampleRate: audioFormat.rate, channelCount: audioFormat.channels,
                                                                   bufferDuration: buffer, duration: duration?.time),
            audioBitrate: bitrate?.bitsPerSecond,
            pictures: VideoCapture.Options(device: device, frameRate: rate, size: pictures.size, duration: duration?.time),
            encoding: encoding, fragment: MediaTime(seconds: fragment), faststart: faststart, hls: hls.options,
            network: network.options(for: output!, certificates: certificates.check))
        let graceful = GracefulStop()
        try await CommandRunner.run(logging: logging, graceful: graceful) {
            try await job.run(graceful: graceful)
        }
    }
}

/// `record`'s `--rate` and `--channels` ask the device for them (libswresample converts when it cannot).
extension Record: AudioFormatHelp {
    static var audioFormatHelp: AudioFormatText {
        AudioFormatText(rate: "Sample rate in Hz (default: the device's).", channels: "Channel count (default: the device's).",
                        rates: 8_000...384_000, rateUnit: " Hz")
    }
}

/// One recording: the device, the chain to the output, the live status line and the report.
struct RecordJob: Sendable {
    let output: String
    let container: Container
    let overwrite: Bool
    let capture: DeviceCapture.Options
    let bitrate: Int?
    let faststart: Bool
    let fragment: MediaTime
    let hls: HLSOptions
    /// How a network output is connected, reconnected and copied.
    let network: NetworkOptions

    func run(graceful: GracefulStop) async throws {
        let capture = try MicrophoneSound.open(self.capture, hint: "list the devices with 'avpipe record --list-devices'")
        let control = capture.control
        graceful.install { control.stop() }
        let status = RecordStatusLine(control: control, sampleRate: capture.outputFormat.sampleRate)
        let drawing = Task { await status.keepDrawing() }
        defer { drawing.cancel() }

        try await MicrophoneSound.feed(capture, asked: self.capture, into: Writer(job: self))
        drawing.cancel()
        await drawing.value
        status.finish()
        if let warning = MicrophoneSound.overrunWarning(control.statistics, rate: capture.outputFormat.sampleRate) {
            printWarning(warning)
        }
    }

    /// The sound to a WAV, or encoded to AAC in the output's container.
    private struct Writer: MicrophoneSoundSink {
        let job: RecordJob

        func take<PCM: SampleSource>(_ pcm: PCM) async throws where PCM.Buffer == PCMBuffer {
            if job.container == .wav {
                try await WAVWriter(upstream: pcm, path: job.output, overwrite: job.overwrite, live: true).run()
                return
            }
            let encoder = try pcm.encodeAAC(.init(bitRate: job.bitrate))
            EncodeJob.reportLowered(requested: job.bitrate, encoder: encoder)
            var destination = EncodedAudioOutput(path: job.output, container: job.container, overwrite: job.overwrite,
                                                 recording: .init(fragment: job.fragment, faststart: job.faststart), hls: job.hls)
            destination.network = job.network
            try await destination.write(encoder)
        }
    }
}

extension String {
    init(format3 value: Double) {
        let thousandths = Int64((value * 1000).rounded())
        let fraction = "\(abs(thousandths % 1000))"
        self = "\(thousandths / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
