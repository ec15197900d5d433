import Synchronization

/// A seek asked of a demuxer; `generation` tells each track whether it has carried it out.
struct SeekRequest: Sendable {
    let generation: Int
    let mark: SeekMark
}

/// The latest seek asked of a demuxer, which each of its tracks carries out on its next pull.
/// Asked from any thread; read by every track before every packet, so that read is one atomic load
/// until a seek is asked (the lock costs more than the rest of a copied packet's bookkeeping).
final class SeekRequests: Sendable {
    private let request = LockedState<SeekRequest?>(nil)
    private let generation = Atomic<Int>(0)

    func ask(_ time: MediaTime, mode: SeekMode) {
        request.withLock { request in
            let next = (request?.generation ?? 0) + 1
            request = SeekRequest(generation: next, mark: SeekMark(target: time, mode: mode, generation: next))
            generation.store(next, ordering: .releasing)
        }
    }

    /// The latest request, when it is newer than `generation`.
    func latest(after seen: Int) -> SeekRequest? {
        guard generation.load(ordering: .acquiring) > seen else { return nil }
        return request.withLock { $0 }
    }
}
