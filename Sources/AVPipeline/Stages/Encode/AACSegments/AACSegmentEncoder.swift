#if canImport(Dispatch)
import Dispatch
#endif

/// One segment of a parallel encode, run to the end on a worker thread: an encoder, the PCM frames
/// it is fed (pre-roll, the segment's own frames, post-roll), and the packets it keeps, which go
/// out through `output` in order as they are made. Frames are freed as they are sent.
///
/// The encoder is usually warm: the one a finished segment handed back (`Returned`), its rate
/// control and psychoacoustic state settled on the audio of an earlier segment rather than cold
/// (FFmpeg's AAC rate control starts at lambda 120 with an empty bit reservoir, and each cold start
/// costs ~0.1 s of extra searching and audibly different seams). The pre-roll re-aligns it: the
/// packets made across the jump in the input are not kept.
///
/// Everything here is owned by the job alone once it is started: the encoder is touched by no other
/// thread until it is handed back through `output`, and the frames are this segment's own.
final class AACSegmentEncoder {
    /// An encoder handed back by a finished segment, fed up to the post-roll and never flushed, so
    /// the next segment can continue with it. The last item of a segment's output, if any.
    final class Returned {
        let encoder: CodecContext
        init(_ encoder: CodecContext) { self.encoder = encoder }
    }

    private var encoder: CodecContext?
    private var frames: [Frame?]
    private let kept: Range<Int>
    private let warmUp: Int
    /// Packets still to drop unseen: the first two of an encoder that encoded elsewhere before.
    private var stale: Int
    private let origin: Int64
    private let frameSize: Int
    private let output: BoundedHandoff
    private let stop: LockedState<Bool>

    /// `warmUp`: frames a cold encoder encodes first, all discarded (the segment's frames, from
    /// the start and round again if fewer), so that its rate control has settled on this audio.
    /// `continued`: the encoder was handed back by an earlier segment.
    init(encoder: CodecContext, continued: Bool, warmUp: Int, frames: [Frame], kept: Range<Int>, origin: Int64, frameSize: Int,
         output: BoundedHandoff, stop: LockedState<Bool>) {
        self.encoder = encoder
        self.warmUp = warmUp
        // FFmpeg's encoder stamps a packet with the time of the oldest samples it still counts as
        // queued (audio_frame_queue), one frame behind what it encodes. An encoder that encoded
        // an earlier segment still counts two frames from there: the two packets after the jump
        // carry those frames' times (the first is the block across the jump, the second a pre-roll
        // block), and from the third on times and contents are the sequential encode's again.
        // (After a warm-up, those two carry the warm-up's far-off times and drop by themselves.)
        stale = continued ? 2 : 0
        self.frames = frames
        self.kept = kept
        self.origin = origin
        self.frameSize = frameSize
        self.output = output
        self.stop = stop
    }

    /// Runs the job on a thread of Dispatch's pool (not the cooperative pool: an encode holds its
    /// thread for seconds without suspending, which would starve the tasks reading the input).
    static func start(_ job: AACSegmentEncoder) {
        let transfer = OwnershipTransfer(job)  // the caller never touches the job again
        DispatchQueue.global(qos: .userInitiated).async {
            transfer.value.run()
        }
    }

    private enum Outcome { case reusable, flushed, stopped }

    private func run() {
        let ending: BoundedHandoff.Ending
        do {
            switch try encode(encoder!) {
            case .reusable:
                output.deliver(HandedOver(Returned(encoder.take()!) as AnyObject))
                ending = .end
            case .flushed: ending = .end
            case .stopped: ending = .failure(AVPipelineError.cancelled)
            }
        } catch {
            ending = .failure(error)
        }
        frames = []
        encoder = nil
        output.finish(ending)
    }

    private func encode(_ encoder: CodecContext) throws -> Outcome {
        let packet = try Packet()
        if warmUp > 0, try !warm(encoder, packet) { return .stopped }
        for index in frames.indices {
            if stop.withLock({ $0 }) { return .stopped }
            // Taken out of the list: freed once sent, so memory follows the encode.
            guard let frame = frames[index].take() else { continue }
            try encoder.sendExpectingRoom(frame)
            if try drain(encoder, packet) { return .reusable }
        }
        _ = try encoder.send(frame: nil)
        _ = try drain(encoder, packet)
        return .flushed
    }

    /// Sends `warmUp` frames stamped far before the input, so that every packet they give (the
    /// last one comes out after the next frame sent) falls outside what any segment keeps.
    private func warm(_ encoder: CodecContext, _ packet: Packet) throws -> Bool {
        // Whole frames only: a short one tells the encoder the input ends, and its queue would
        // count the missing samples against every later packet's time.
        let whole = frames.compactMap { $0 }.filter { $0.sampleCount == frameSize }
        guard !whole.isEmpty else { return true }
        for count in 0..<warmUp {
            if count % 64 == 0, stop.withLock({ $0 }) { return false }
            let frame = whole[count % whole.count]
            let pts = frame.pointer.pointee.pts
            frame.pointer.pointee.pts = pts - Self.warmUpShift
            defer { frame.pointer.pointee.pts = pts }
            try encoder.sendExpectingRoom(frame)
            while try encoder.receive(packet: packet) == .got { packet.unref() }
        }
        return true
    }

    /// 2^40 samples (over 290 days at 44.1 kHz) before a frame's time: no segment's packets.
    private static var warmUpShift: Int64 { 1 << 40 }

    /// Receives what the encoder has; true once the segment's last kept packet is out (the
    /// encoder has then seen one frame past the segment, all the lookahead its window decision
    /// uses, and the rest of the post-roll is not needed).
    private func drain(_ encoder: CodecContext, _ packet: Packet) throws -> Bool {
        while true {
            guard try encoder.receive(packet: packet) == .got else { return false }
            if stale > 0 {
                stale -= 1
                packet.unref()
                continue
            }
            let index = AACSegmentPlan.packetIndex(pts: packet.pointer.pointee.pts, origin: origin, frameSize: frameSize)
            if kept.contains(index) {
                output.deliver(HandedOver(try packet.takeReference() as AnyObject))
            } else {
                packet.unref()
            }
            if kept.upperBound != Int.max, index >= kept.upperBound - 1 { return true }
        }
    }
}
