internal import CFFmpeg

/// Owns one `AVPacket`. Payloads are refcounted by FFmpeg: moving a packet between stages moves the
/// reference (`av_packet_move_ref`), never the bytes.
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() throws(AVPipelineError) {
        pointer = try allocated(av_packet_alloc())
    }

    deinit {
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

    var size: Int { Int(pointer.pointee.size) }
    var streamIndex: Int { Int(pointer.pointee.stream_index) }
}
