internal import CFFmpeg

/// Gives timestamps to a raw H.264/H.265 elementary stream, which has none: one tick per frame at
/// the frame rate the stream's timing info declares (else the caller's fallback, 25 fps like
/// ffmpeg), decode times in arrival order, and presentation times from each picture's POC (read by
/// FFmpeg's parser), so B-frames are shown in the right order. Holds at most 17 packets.
final class RawVideoTiming {
    let frameRate: Rational
    /// Whether `frameRate` came from the stream rather than the fallback.
    let frameRateIsDeclared: Bool
    /// One tick per frame.
    let timeBase: Rational
    private let codec: AVCodecID
    private let label: String
    private let parser: StreamParser
    private let delay: Int64
    private var order = PresentationOrder()
    private var queue: [(index: Int64, packet: Packet, presentation: Int64?)] = []
    private var count: Int64 = 0

    /// `reorderDelay` is how many frames decoding runs ahead of display (`has_b_frames`): the first
    /// decode time is minus that many frames, so every decode time precedes its presentation time.
    /// `forcedFrameRate` (the user's) wins over what the stream declares, which wins over `fallbackFrameRate`.
    init(codec: AVCodecID, first: Packet, forcedFrameRate: Rational? = nil, fallbackFrameRate: Rational, reorderDelay: Int,
         label: String) throws(AVPipelineError) {
        self.codec = codec
        self.label = label
        parser = try StreamParser(codec: codec)
        delay = Int64(max(reorderDelay, 0))
        let poc = parser.pictureOrderCount(of: first)
        frameRateIsDeclared = forcedFrameRate != nil || parser.declaredFrameRate != nil
        frameRate = forcedFrameRate ?? parser.declaredFrameRate ?? fallbackFrameRate
        timeBase = Rational(frameRate.denominator, frameRate.numerator)
        enqueue(first, poc: poc)
    }

    func add(_ packet: Packet) {
        enqueue(packet, poc: parser.pictureOrderCount(of: packet))
    }

    /// No more input: every waiting frame's presentation time is now known.
    func finish() { settle(order.drain()) }

    /// The oldest frame (decode order) once its presentation time is known.
    func nextReady() throws(AVPipelineError) -> Packet? {
        guard let head = queue.first, let presentation = head.presentation else { return nil }
        queue.removeFirst()
        let dts = head.index - delay
        guard presentation >= dts else {
            throw .invalidData(path: label, position: MediaTime(value: dts, timeBase: timeBase),
                               reason: "frames are reordered more deeply than the stream declares (\(delay))")
        }
        let p = head.packet.pointer
        p.pointee.dts = dts
        p.pointee.pts = presentation
        p.pointee.duration = 1
        return head.packet
    }

    private func enqueue(_ packet: Packet, poc: Int32) {
        let index = count
        count += 1
        queue.append((index, packet, nil))
        settle(order.add(index: index, poc: poc, startsPeriod: index > 0 && Self.startsPOCPeriod(packet, codec: codec)))
    }

    private func settle(_ pictures: [(index: Int64, presentation: Int64)]) {
        guard let first = queue.first?.index else { return }
        for picture in pictures { queue[Int(picture.index - first)].presentation = picture.presentation }
    }

    /// Whether the access unit holds an IDR (H.264 type 5; H.265 IDR/BLA 16…20): POC restarts there
    /// and every earlier picture is shown before it.
    static func startsPOCPeriod(_ packet: Packet, codec: AVCodecID) -> Bool {
        guard let data = packet.pointer.pointee.data else { return false }
        let size = packet.size
        var i = 0
        while i + 3 < size {
            if data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1 {
                // The first slice decides; parameter sets and SEI before it do not.
                let header = data[i + 3]
                if codec == AV_CODEC_ID_H264 {
                    let type = header & 0x1F
                    if (1...5).contains(type) { return type == 5 }
                } else if codec == AV_CODEC_ID_HEVC {
                    let type = (header >> 1) & 0x3F
                    if type < 32 { return (16...20).contains(type) }
                }
                i += 3
            } else {
                i += 1
            }
        }
        return false
    }
}
