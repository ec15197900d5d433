internal import CFFmpeg

/// The one reading context of an input that cannot seek (a pipe, stdin, a FIFO), shared by every
/// track read from it.
///
/// A seekable file gives each consumed track a context of its own (`TrackReader`). A pipe can be
/// read once only: opening it again would start where the probe stopped and silently lose what it
/// read. So the probing context serves all tracks: a track that pulls reads on until a packet of
/// its own comes, parking the packets of the other consumed tracks in their queues. The tracks to
/// serve are fixed when reading starts; packets of any other stream are dropped at the source.
///
/// A network input whose tracks share every byte (an HLS stream, an MPEG-TS file over HTTP) is read
/// this way too, so that each segment is fetched once, not once per track. It can be opened again
/// (`reopenable`): a track that comes after reading began, or that seeks, reads a context of its own.
///
/// The queues are bounded by `maxParkedBytes`: a pipe whose tracks are interleaved further apart
/// than that fails with a typed error instead of growing without bound. `@unchecked Sendable`:
/// the context and the queues are only touched under `state`'s lock.
final class SharedInput: @unchecked Sendable {
    /// What one track may have waiting before the input counts as interleaved too far apart.
    static let maxParkedBytes = 64 << 20

    // @unchecked: the parked packets are only touched under the lock.
    private struct State: @unchecked Sendable {
        var queues: [Int: [Packet]] = [:]
        var parkedBytes: [Int: Int] = [:]
        var started = false
        var ended = false
    }

    private let context: InputContext
    private let state = LockedState(State())
    /// Whether the input can be opened again (a network VOD input, not a pipe).
    let reopenable: Bool

    init(context: InputContext, reopenable: Bool = false) {
        self.context = context
        self.reopenable = reopenable
    }

    var path: String { context.path }
    var formatName: String { context.formatName }
    var bytesRead: Int64 { state.withLock { _ in context.bytesRead } }
    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> { context.stream(index) }

    /// A track will read `stream`; before the first read only (a pipe cannot go back for it). False
    /// when a reopenable input cannot serve it (reading began, or the stream has its reader): the
    /// track then opens the input again.
    func register(stream: Int) throws(AVPipelineError) -> Bool {
        try state.withLock { (s: inout State) throws(AVPipelineError) in
            if reopenable && (s.started || s.queues[stream] != nil) { return false }
            guard !s.started else {
                throw .invalidOption(name: "track", value: "\(stream)",
                                     reason: "'\(context.path)' cannot seek (a pipe): ask for every track before reading any")
            }
            guard s.queues[stream] == nil else {
                throw .invalidOption(name: "track", value: "\(stream)",
                                     reason: "'\(context.path)' cannot seek (a pipe): each track can be read by one reader only")
            }
            s.queues[stream] = []
            s.parkedBytes[stream] = 0
            return true
        }
    }

    /// A track went away (or reads a context of its own now): nothing more is kept or read for it.
    func unregister(stream: Int) {
        state.withLock { s in
            s.queues[stream] = nil
            s.parkedBytes[stream] = nil
            if s.started { context.stream(stream).pointee.discard = AVDISCARD_ALL }
        }
    }

    /// The next packet of `stream`, moved into `packet`; false at the end of the input.
    func read(into packet: Packet, for stream: Int) throws(AVPipelineError) -> Bool {
        try state.withLock { (s: inout State) throws(AVPipelineError) in
            if !s.started { start(&s) }
            if let waiting = s.queues[stream]?.first {
                s.queues[stream]!.removeFirst()
                s.parkedBytes[stream]! -= waiting.size
                av_packet_move_ref(packet.pointer, waiting.pointer)
                return true
            }
            while !s.ended {
                guard try context.read(into: packet) else {
                    s.ended = true
                    return false
                }
                let owner = packet.streamIndex
                if owner == stream { return true }
                guard s.queues[owner] != nil else {
                    packet.unref()
                    continue
                }
                try park(packet, for: owner, &s)
            }
            return false
        }
    }

    /// Why a live input ended, once it has (`InputContext.liveEnd`).
    var liveEnd: String? { state.withLock { _ in context.liveEnd } }

    /// Whether reading has hit the end of the input.
    var reachedEndOfFile: Bool { state.withLock { s in s.ended || context.reachedEndOfFile } }

    private func start(_ s: inout State) {
        s.started = true
        for index in 0..<context.streamCount where s.queues[index] == nil {
            context.stream(index).pointee.discard = AVDISCARD_ALL
        }
    }

    private func park(_ packet: Packet, for owner: Int, _ s: inout State) throws(AVPipelineError) {
        let size = packet.size
        guard s.parkedBytes[owner, default: 0] + size <= Self.maxParkedBytes else {
            packet.unref()
            throw .invalidData(path: context.path, position: nil,
                               reason: "its tracks are interleaved too far apart to be read \(reopenable ? "together" : "from a pipe") (over \(Self.maxParkedBytes >> 20) MiB of track \(owner) ahead of the others)\(reopenable ? "" : "; read it from a file")")
        }
        s.queues[owner]!.append(try packet.takeReference())
        s.parkedBytes[owner]! += size
    }
}
