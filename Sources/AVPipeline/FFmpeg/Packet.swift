internal import CFFmpeg

/// Owns one `AVPacket`. Payloads are refcounted by FFmpeg: moving a packet between stages moves the
/// reference (`av_packet_move_ref`), never the bytes.
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() throws(AVPipelineError) {
        if let blank = PacketShelf.take() {
            pointer = blank
        } else {
            pointer = try allocated(av_packet_alloc())
        }
    }

    deinit {
        // Blank again (as av_packet_alloc makes it), then kept for the next packet if there is room.
        av_packet_unref(pointer)
        guard !PacketShelf.put(pointer) else { return }
        var owned: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&owned)
    }

    /// A new owner holding the reference `self` held; `self` is left blank for reuse.
    func takeReference() throws(AVPipelineError) -> Packet {
        let moved = try Packet()
        av_packet_move_ref(moved.pointer, pointer)
        return moved
    }

    func unref() { av_packet_unref(pointer) }

    /// A packet holding a copy of `bytes` (with the padding libavcodec wants after them).
    convenience init(copying bytes: [UInt8]) throws(AVPipelineError) {
        try self.init()
        try check(av_new_packet(pointer, Int32(bytes.count)), "av_new_packet")
        bytes.withUnsafeBufferPointer { _ = memcpy(pointer.pointee.data, $0.baseAddress!, bytes.count) }
    }

    var size: Int { Int(pointer.pointee.size) }
    var streamIndex: Int { Int(pointer.pointee.stream_index) }
}

/// The timing and payload views the encoded-packet buffers expose, in one place.
extension Packet {
    func presentationTime(in timeBase: Rational) -> MediaTime? { MediaTime(ffmpeg: pointer.pointee.pts, timeBase: timeBase) }
    func decodeTime(in timeBase: Rational) -> MediaTime? { MediaTime(ffmpeg: pointer.pointee.dts, timeBase: timeBase) }

    func duration(in timeBase: Rational) -> MediaTime? {
        pointer.pointee.duration > 0 ? MediaTime(value: pointer.pointee.duration, timeBase: timeBase) : nil
    }

    var isKeyframe: Bool { (pointer.pointee.flags & avp_pkt_flag_key()) != 0 }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: pointer.pointee.data, count: size))
    }
}
