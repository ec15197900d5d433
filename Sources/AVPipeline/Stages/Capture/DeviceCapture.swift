internal import CFFmpeg
import Synchronization

/// Live capture from an audio input device (a microphone, a line in, a sound server's source):
/// PCM in fixed-size chunks, as fast as the device produces it.
///
/// The device pushes on its own clock into one bounded `CaptureRing`; `next()` pulls from it. A
/// consumer that falls behind by more than the ring's `bufferDuration` loses the oldest audio:
/// the loss is counted (`control.statistics`) and shows as a jump in presentation time, which
/// counts sample frames since the device started — never as audio silently joined.
///
/// The capture ends after `duration`, when `control.stop()` is called (from any thread), or when
/// the pulling task is cancelled; in each case the device stops, the audio captured until then is
/// delivered (the last chunk may be shorter) and `next()` returns nil.
public final class DeviceCapture: SampleSource {
    public typealias Buffer = PCMBuffer

    /// Which device, in what format, and how much to buffer and for how long to capture.
    public struct Options: Sendable {
        /// The input device's name (see `AudioInputDevices.names()`); nil: the system's default.
        public var device: String?
        /// Rate to ask the device for; nil: the device's own. A device that cannot deliver it
        /// delivers its own format (see `outputFormat`; resample with `.resampled(to:)`).
        public var sampleRate: Int?
        /// Channel count to ask the device for; nil: the device's own (as for `sampleRate`).
        public var channelCount: Int?
        /// Sample frames per chunk (the last chunk may be shorter).
        public var chunkFrames: Int
        /// How much audio the ring holds for a slow consumer before the oldest is dropped, in
        /// seconds. Some sources deliver in large blocks (PulseAudio's sine source: 2 s at once),
        /// which the ring must take whole while the consumer catches up.
        public var bufferDuration: Double
        /// Stop after this much capture time (nil: until stopped).
        public var duration: MediaTime?
        /// A device that delivers nothing for this many seconds is an error, not an endless wait.
        public var stallTimeout: Double
        /// The clock a recording's captures share (`VideoCapture` places its pictures on this
        /// audio's timeline). With a clock, the device starts as soon as the capture is made, so
        /// that the clock runs before anything is pulled.
        public var clock: CaptureClock?

        /// The default device in its own format, 1024-frame chunks, a 4 s ring, until stopped, failing
        /// after 5 s without audio, unless told otherwise.
        public init(device: String? = nil, sampleRate: Int? = nil, channelCount: Int? = nil, chunkFrames: Int = 1024,
                    bufferDuration: Double = 4, duration: MediaTime? = nil, stallTimeout: Double = 5, clock: CaptureClock? = nil) {
            self.device = device
            self.sampleRate = sampleRate
            self.channelCount = channelCount
            self.chunkFrames = chunkFrames
            self.bufferDuration = bufferDuration
            self.duration = duration
            self.stallTimeout = stallTimeout
            self.clock = clock
        }
    }

    /// What the capture did so far; read from any thread through `control`.
    public struct Statistics: Sendable {
        /// Sample frames delivered downstream.
        public var deliveredFrames: Int64 = 0
        /// Times the ring overflowed.
        public var overrunCount = 0
        /// Sample frames the overflows lost, in all.
        public var droppedFrames: Int64 = 0
        /// Where the first overruns happened (capture time) and how long each was.
        public var overruns: [(at: MediaTime, lost: MediaTime)] = []
        /// The loudest sample since the last `takePeak()`, as a fraction of full scale.
        public var peak: Float = 0
    }

    /// Stops the capture and reads its statistics, from any thread or task.
    public final class Control: Sendable {
        fileprivate let stopRequested = Atomic(false)
        fileprivate let state: LockedState<Statistics>
        fileprivate let sampleRate: Int

        fileprivate init(sampleRate: Int) {
            self.sampleRate = sampleRate
            state = LockedState(Statistics())
        }

        /// Ends the capture: what was captured so far is still delivered, then the end of stream.
        public func stop() { stopRequested.store(true, ordering: .releasing) }

        /// What the capture did so far (a snapshot).
        public var statistics: Statistics { state.withLock { $0 } }

        /// The peak level since the previous call (and resets it): for a level meter.
        public func takePeak() -> Float {
            state.withLock { statistics in
                defer { statistics.peak = 0 }
                return statistics.peak
            }
        }
    }

    public let outputFormat: AudioFormat
    /// The device's name, as opened.
    public let deviceName: String
    /// Stops the capture and reads its statistics, from any thread or task.
    public let control: Control

    private let options: Options
    private let input: any AudioInputDevice
    private let ring: CaptureRing
    private let buffers: AudioBufferPool
    private let endFrame: Int64?
    private var started = false
    private var ended = false

    /// Opens `options.device` through `devices` (capture starts at the first pull). Throws
    /// `deviceUnavailable` (`.audioInput`) when no device can be opened. (AVPipelineDevices adds
    /// `init(options:)`, which opens an SDL2 input.)
    public convenience init(options: Options = Options(), devices: some CaptureDevices) throws {
        try Self.validate(options)
        let input = try devices.openAudioInput(named: options.device, sampleRate: options.sampleRate, channelCount: options.channelCount)
        try self.init(input: input, options: options)
    }

    /// Captures from `input`, a device already opened (capture starts at the first pull, or at
    /// once with a `clock`).
    public init(input: any AudioInputDevice, options: Options = Options()) throws {
        try Self.validate(options)
        self.input = input
        self.options = options
        outputFormat = input.format
        deviceName = input.name
        control = Control(sampleRate: input.format.sampleRate)
        let bytesPerFrame = outputFormat.channelCount * outputFormat.sampleFormat.bytesPerSample
        let capacity = Swift.max(Int(options.bufferDuration * Double(outputFormat.sampleRate)), options.chunkFrames * 2)
        ring = CaptureRing(capacityFrames: capacity, bytesPerFrame: bytesPerFrame,
                           clock: options.clock.map { ($0, input.format.sampleRate) })
        buffers = AudioBufferPool(format: outputFormat)
        endFrame = options.duration.map { $0.converted(to: input.format.sampleTimeBase).value }
        if options.clock != nil { startDevice() }
    }

    deinit { input.close() }

    /// The ring's fixed size, in sample frames (for tests: it never grows).
    var ringCapacityFrames: Int { ring.capacityFrames }

    public func next() async throws -> PCMBuffer? {
        guard !ended else { return nil }
        startDevice()
        var waited = 0.0
        // One frame for this chunk, kept across the waits for it (a new one only if the wanted
        // count changes as `duration` nears its end).
        var chunk: (frame: Frame, frames: Int)?
        while true {
            if Task.isCancelled || control.stopRequested.load(ordering: .acquiring) { finishCapture() }
            let wanted = framesWanted
            guard wanted > 0 else {
                finishCapture()
                ended = true
                return nil
            }
            if chunk?.frames != wanted { chunk = (try buffers.frame(frameCount: wanted), wanted) }
            let frame = chunk!.frame
            switch ring.read(frames: wanted, into: frame.pointer.pointee.extended_data[0]!) {
            case .audio(let first, let count):
                frame.pointer.pointee.nb_samples = Int32(count)
                frame.pointer.pointee.pts = first
                account(frame, count: count)
                return PCMBuffer(frame: frame, format: outputFormat)
            case .ended:
                ended = true
                return nil
            case .wait(let missing):
                // Sleep about as long as the device needs for the rest of the chunk.
                let seconds = Swift.min(Swift.max(Double(missing) / Double(outputFormat.sampleRate), 0.002), 0.05)
                waited = ring.fill == 0 ? waited + seconds : 0
                if waited > options.stallTimeout {
                    finishCapture()
                    throw AVPipelineError.deviceUnavailable(.audioInput, reason: "\(deviceName) delivered no audio for \(Int(options.stallTimeout)) s")
                }
                try? await Task.sleep(for: .seconds(seconds))
            }
        }
    }

    private func startDevice() {
        guard !started else { return }
        started = true
        input.start(into: ring)
    }

    /// A whole chunk, or less where `duration` ends sooner; 0 once it has.
    private var framesWanted: Int {
        guard let endFrame else { return options.chunkFrames }
        let position = ring.readPosition
        return Int(Swift.max(0, Swift.min(Int64(options.chunkFrames), endFrame - position)))
    }

    /// Stops the device; the ring keeps what it holds for the reads that follow.
    private func finishCapture() {
        input.close()
        ring.end()
    }

    private func account(_ frame: Frame, count: Int) {
        let peak = Self.peak(of: frame, count: count * outputFormat.channelCount, format: outputFormat.sampleFormat)
        let losses = ring.losses
        let timeBase = outputFormat.sampleTimeBase
        control.state.withLock { statistics in
            statistics.deliveredFrames += Int64(count)
            statistics.peak = Swift.max(statistics.peak, peak)
            statistics.overrunCount = losses.count
            statistics.droppedFrames = losses.droppedFrames
            if statistics.overruns.count != losses.first.count {
                statistics.overruns = losses.first.map {
                    (MediaTime(value: $0.frame, timeBase: timeBase), MediaTime(value: $0.frameCount, timeBase: timeBase))
                }
            }
        }
    }

    /// The largest absolute sample of an interleaved chunk, as a fraction of full scale.
    private static func peak(of frame: Frame, count: Int, format: SampleFormat) -> Float {
        let data = UnsafeRawPointer(frame.pointer.pointee.extended_data[0]!)
        var peak: Float = 0
        switch format {
        case .flt:
            let samples = data.assumingMemoryBound(to: Float.self)
            for i in 0..<count { peak = Swift.max(peak, abs(samples[i])) }
        case .s16:
            let samples = data.assumingMemoryBound(to: Int16.self)
            var largest: Int32 = 0
            for i in 0..<count { largest = Swift.max(largest, abs(Int32(samples[i]))) }
            peak = Float(largest) / 32_768
        case .s32:
            let samples = data.assumingMemoryBound(to: Int32.self)
            var largest: Int64 = 0
            for i in 0..<count { largest = Swift.max(largest, abs(Int64(samples[i]))) }
            peak = Float(largest) / 2_147_483_648
        case .u8:
            let samples = data.assumingMemoryBound(to: UInt8.self)
            var largest: Int32 = 0
            for i in 0..<count { largest = Swift.max(largest, abs(Int32(samples[i]) - 128)) }
            peak = Float(largest) / 128
        default:
            break
        }
        return Swift.min(peak, 1)
    }

    static func validate(_ options: Options) throws(AVPipelineError) {
        if let rate = options.sampleRate, !(8_000...384_000).contains(rate) {
            throw .invalidOption(name: "sample rate", value: "\(rate)", reason: "must be between 8000 and 384000 Hz")
        }
        if let channels = options.channelCount, !(1...8).contains(channels) {
            throw .invalidOption(name: "channel count", value: "\(channels)", reason: "must be between 1 and 8")
        }
        guard (1...(1 << 16)).contains(options.chunkFrames) else {
            throw .invalidOption(name: "chunk frames", value: "\(options.chunkFrames)", reason: "must be between 1 and 65536")
        }
        guard options.bufferDuration >= 0.05, options.bufferDuration <= 60 else {
            throw .invalidOption(name: "buffer duration", value: "\(options.bufferDuration)", reason: "must be between 0.05 and 60 seconds")
        }
        if let duration = options.duration, duration.value <= 0 {
            throw .invalidOption(name: "duration", value: "\(duration)", reason: "must be positive")
        }
        guard options.stallTimeout > 0 else {
            throw .invalidOption(name: "stall timeout", value: "\(options.stallTimeout)", reason: "must be positive")
        }
    }
}

