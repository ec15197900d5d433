internal import CFFmpeg
import Synchronization

/// Live pictures from a screen or a camera (a `VideoCaptureSource`, such as AVPipelineDevices'
/// `VideoCaptureDevice`), as fast as the device makes
/// them, on the recording's clock.
///
/// Capture starts when the stage is made (a device left unread would hand over a burst of stale
/// pictures later). A thread of its own reads the device (a libavdevice demuxer, opened like a file) at the
/// device's pace, stamps each picture on the monotonic clock as it arrives and puts it in one
/// bounded `PictureQueue`; `next()` pulls from it (woken as each picture arrives), decodes (raw pictures are only wrapped) and
/// times the picture. An encoder that falls behind loses the oldest pictures, counted in
/// `control.statistics`; the queue never grows.
///
/// Times are milliseconds on the capture's timeline: with a `CaptureClock` shared with a
/// `DeviceCapture`, the microphone's (a picture and a sound made together get the same time;
/// pictures from before the microphone's first sound are left out); without one, from the first picture. The capture ends after `duration`, when
/// `control.stop()` is called (from any thread) or when the pulling task is cancelled; the
/// pictures already captured are delivered, then `next()` returns nil.
public final class VideoCapture: SampleSource {
    public typealias Buffer = VideoFrame

    /// Which device, how fast, and for how long.
    public struct Options: Sendable {
        /// The screen or camera.
        public var device: any VideoCaptureSource
        /// Pictures per second asked of the device.
        public var frameRate: Rational
        /// The picture size asked of a camera (a screen region has its own size); nil: the device's.
        public var size: (width: Int, height: Int)?
        /// Pictures the queue holds for a slow encoder before the oldest is dropped; nil: half a
        /// second's worth (at least 4).
        public var queueLength: Int?
        /// Stop after this much capture time (nil: until stopped).
        public var duration: MediaTime?
        /// The clock shared with the microphone's capture; nil: a timeline of its own.
        public var clock: CaptureClock?
        /// A device that delivers no picture for this many seconds is an error, not an endless wait.
        public var stallTimeout: Double

        /// `device` at 30 pictures a second, until stopped, unless told otherwise.
        public init(device: any VideoCaptureSource, frameRate: Rational = Rational(30, 1), size: (width: Int, height: Int)? = nil,
                    queueLength: Int? = nil, duration: MediaTime? = nil, clock: CaptureClock? = nil, stallTimeout: Double = 5) {
            self.device = device
            self.frameRate = frameRate
            self.size = size
            self.queueLength = queueLength
            self.duration = duration
            self.clock = clock
            self.stallTimeout = stallTimeout
        }
    }

    /// What the capture did so far.
    public struct Statistics: Sendable, Equatable {
        /// Pictures the device delivered.
        public var captured = 0
        /// Pictures handed downstream.
        public var delivered = 0
        /// Pictures dropped because the encoder fell behind.
        public var dropped = 0
    }

    /// Stops the capture and reads its statistics, from any thread or task.
    public final class Control: Sendable {
        let reader: DeviceReader
        fileprivate let delivered = Atomic(0)

        fileprivate init(reader: DeviceReader) { self.reader = reader }

        /// Ends the capture: the pictures captured so far are still delivered, then the end of stream.
        public func stop() { reader.stop() }

        /// What the capture did so far (a snapshot).
        public var statistics: Statistics {
            let counts = reader.queue.counts
            return Statistics(captured: counts.captured, delivered: delivered.load(ordering: .relaxed), dropped: counts.dropped)
        }
    }

    /// The device's pictures: its size and pixel layout, timed in milliseconds at `frameRate`.
    public let outputFormat: VideoFormat
    /// Stops the capture and reads its statistics, from any thread or task.
    public let control: Control
    /// The device, as errors name it.
    public let deviceName: String

    private let options: Options
    private let kind: DeviceKind
    private let decoder: CodecContext
    /// Capture time (monotonic nanoseconds) of the first picture, for a capture without a clock.
    private var ownOrigin: Int?
    private var lastTime: Int64 = -1
    private var watchdog: Task<Void, Never>?
    private var ended = false

    /// Opens the device and starts capturing. Throws `deviceUnavailable` naming the
    /// device when it cannot be opened, `invalidOption` for settings out of range.
    public init(options: Options) throws {
        try Self.validate(options)
        self.options = options
        let opening = try options.device.opening(frameRate: options.frameRate, size: options.size)
        kind = opening.kind
        deviceName = opening.label
        let input = try InputContext(source: .device(opening), findStreamInfo: false)
        guard input.streamCount > 0, input.stream(0).pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO else {
            throw AVPipelineError.deviceUnavailable(opening.kind, reason: "\(opening.label) gives no pictures")
        }
        let parameters = input.stream(0).pointee.codecpar!
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw AVPipelineError.unsupportedCodec("\(opening.label) sends \(Codec(parameters.pointee.codec_id)) pictures, which this FFmpeg cannot decode")
        }
        decoder = try CodecContext(codec: codec)
        try check(avcodec_parameters_to_context(decoder.pointer, parameters), "avcodec_parameters_to_context")
        try decoder.open()
        let pixelFormat = parameters.pointee.format >= 0 ? PixelFormat(AVPixelFormat(rawValue: parameters.pointee.format)) : .yuv420p
        var format = VideoFormat(pixelFormat: pixelFormat, width: Int(parameters.pointee.width), height: Int(parameters.pointee.height),
                                 timeBase: Rational(1, 1000), frameRate: options.frameRate)
        // Encoded as 4:2:0 unless asked otherwise: what players and phones take (see `encodingPixelFormat`).
        format.encodingPixelFormat = .yuv420p
        outputFormat = format
        let length = options.queueLength ?? Swift.max(4, Int((Double(options.frameRate.numerator) / Double(options.frameRate.denominator)) / 2))
        let reader = DeviceReader(input: input, queue: PictureQueue(capacity: length), clock: options.clock, duration: options.duration)
        control = Control(reader: reader)
        DetachedThread.spawn { reader.run() }
    }

    deinit {
        control.reader.stop()
        watchdog?.cancel()
    }

    /// The next picture, waiting for the device; nil once the capture has ended. Throws
    /// `deviceUnavailable` when the device (or, with a clock, the microphone) stops delivering.
    public func next() async throws -> VideoFrame? {
        guard !ended else { return nil }
        var waitingSince: Int?
        while true {
            if Task.isCancelled { control.reader.stop() }
            switch control.reader.queue.take() {
            case .picture(let entry):
                waitingSince = nil
                guard let frame = try picture(entry, origin: timelineOrigin(entry)) else { continue }
                return frame
            case .ended(let error):
                ended = true
                watchdog?.cancel()
                if let error { throw error }
                return nil
            case .empty:
                if waitingSince == nil { waitingSince = MonotonicTime.nanoseconds() }
                if Double(MonotonicTime.nanoseconds() - waitingSince!) > options.stallTimeout * 1e9 {
                    control.reader.stop()
                    if let clock = options.clock, clock.audioOriginNanoseconds == nil {
                        throw AVPipelineError.deviceUnavailable(.audioInput, reason: "the microphone delivered no audio for \(Int(options.stallTimeout)) s")
                    }
                    throw AVPipelineError.deviceUnavailable(kind, reason: "\(deviceName) delivered no picture for \(Int(options.stallTimeout)) s")
                }
                startWatchdog()
                let (queue, reader) = (control.reader.queue, control.reader)
                await withTaskCancellationHandler {
                    await queue.waitForPicture()
                } onCancel: {
                    reader.stop()
                    queue.wake()
                }
            }
        }
    }

    /// Wakes a consumer that has waited longer than the stall timeout (a device that stopped
    /// delivering never wakes it), twice a second at most.
    private func startWatchdog() {
        guard watchdog == nil else { return }
        let (queue, timeout) = (control.reader.queue, options.stallTimeout)
        watchdog = Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                queue.wake(ifWaitingLongerThan: timeout)
            }
        }
    }

    /// Where time 0 is on the monotonic clock: the microphone's first sample with a shared clock
    /// (the reader queues no picture before the microphone has delivered), else the first picture.
    private func timelineOrigin(_ entry: PictureQueue.Entry) -> Int {
        if let origin = options.clock?.audioOriginNanoseconds { return origin }
        if ownOrigin == nil { ownOrigin = entry.capturedAt }
        return ownOrigin!
    }

    /// The picture of `entry` on the timeline, or nil when it falls before time 0.
    private func picture(_ entry: PictureQueue.Entry, origin: Int) throws -> VideoFrame? {
        var time = Int64((entry.capturedAt - origin) / 1_000_000)
        guard time >= 0 else { return nil }
        if let duration = options.duration, time >= duration.converted(to: Rational(1, 1000)).value {
            control.reader.stop()
            return nil
        }
        time = Swift.max(time, lastTime + 1)
        lastTime = time
        let frame = try Frame()
        _ = try decoder.send(packet: entry.packet.pointer)
        guard try decoder.receive(frame: frame) == .got else { return nil }
        frame.pointer.pointee.pts = time
        frame.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        avp_frame_set_duration(frame.pointer, Int64((1000 * Double(options.frameRate.denominator) / Double(options.frameRate.numerator)).rounded()))
        control.delivered.add(1, ordering: .relaxed)
        return VideoFrame(frame: frame, format: VideoFormat(frame: frame.pointer.pointee, stream: outputFormat))
    }

    static func validate(_ options: Options) throws(AVPipelineError) {
        let rate = options.frameRate
        guard rate.numerator > 0, rate.denominator > 0, Double(rate.numerator) <= 240 * Double(rate.denominator) else {
            throw .invalidOption(name: "frame rate", value: "\(rate)", reason: "must be above 0 and at most 240 pictures a second")
        }
        if let size = options.size, !(1...16384).contains(size.width) || !(1...16384).contains(size.height) {
            throw .invalidOption(name: "video size", value: "\(size.width)x\(size.height)", reason: "each side must be between 1 and 16384 pixels")
        }
        if let length = options.queueLength, !(1...1024).contains(length) {
            throw .invalidOption(name: "queue length", value: "\(length)", reason: "must be between 1 and 1024 pictures")
        }
        if let duration = options.duration, duration.value <= 0 {
            throw .invalidOption(name: "duration", value: "\(duration)", reason: "must be positive")
        }
        guard options.stallTimeout > 0 else {
            throw .invalidOption(name: "stall timeout", value: "\(options.stallTimeout)", reason: "must be positive")
        }
    }
}

/// The device's reading thread: reads pictures as the device makes them into the queue until
/// stopped or the device fails, leaving out those from before a shared clock's microphone began.
/// It owns the device, so the device is closed on this thread once both it and the capture are
/// done with it.
final class DeviceReader: @unchecked Sendable {
    // @unchecked: `input` is used by the reading thread only (opened before it starts).
    private let input: InputContext
    let queue: PictureQueue
    private let clock: CaptureClock?
    /// How long to capture, in nanoseconds from the timeline's origin: enforced here too, so that
    /// a consumer held up for a while does not keep the device grabbing (and dropping) past it.
    private let duration: Int?
    private let stopRequested = Atomic(false)

    init(input: InputContext, queue: PictureQueue, clock: CaptureClock?, duration: MediaTime? = nil) {
        self.input = input
        self.queue = queue
        self.clock = clock
        self.duration = duration.map { Int(($0.seconds * 1e9).rounded()) }
    }

    func stop() { stopRequested.store(true, ordering: .releasing) }

    func run() {
        var firstCapturedAt: Int?
        while !stopRequested.load(ordering: .acquiring) {
            do {
                let packet = try Packet()
                guard try input.read(into: packet) else { break }
                let now = MonotonicTime.nanoseconds()
                if let clock, (clock.audioOriginNanoseconds ?? Int.max) > now { continue }
                queue.put(.init(packet: packet, capturedAt: now))
                // The first picture past the end goes too: the consumer ends the capture on it.
                let origin = clock?.audioOriginNanoseconds ?? firstCapturedAt ?? now
                firstCapturedAt = firstCapturedAt ?? now
                if let duration, now - origin >= duration { break }
            } catch {
                queue.end(error)
                return
            }
        }
        queue.end()
    }
}
