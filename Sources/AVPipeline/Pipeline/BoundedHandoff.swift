/// The bounded buffer between a producing task and the task that pulls from it: at most `capacity`
/// items wait in it. The producer suspends when it is full and the consumer when it is empty, so
/// work ahead never exceeds the bound whatever the consumer's pace. Continuations are always
/// resumed after the lock is released, and items only ever pass through the lock: a woken consumer
/// takes its item under the lock, so ThreadSanitizer sees every hand-over (a continuation resumed
/// before its task has suspended gives it no happens-before edge, and it reported the producer's
/// writes to an item as racing with the consumer's reads).
///
/// Wake-ups can be batched: a suspended consumer is woken only once `consumerBatch` items wait (or
/// the producer finished), and a suspended producer only once the buffer has drained to
/// `producerResume`. Each wake-up is a thread hand-off costing microseconds; batching keeps a
/// per-item pipeline from paying one per item. The defaults (1, capacity − 1) wake at once.
///
/// Items are objects (packets, sample buffers) carried as `AnyObject`: a generic handoff would be
/// unspecialized behind a generic stage and look up its lock's metadata on every call (~12k
/// instructions per item). The receiving side downcasts to the type it knows it sent.
final class BoundedHandoff: Sendable {
    typealias Item = HandedOver
    enum Ending: Sendable { case end, failure(any Error) }

    private struct State {
        var items: [Item] = []
        var highWaterMark = 0
        var ending: Ending?
        var abandoned = false
        var waitingConsumer: CheckedContinuation<Void, any Error>?
        var waitingProducer: CheckedContinuation<Bool, Never>?

        /// The waiting producer, taken out, once the buffer has drained to `threshold` items.
        mutating func takeProducer(ifAtMost threshold: Int) -> CheckedContinuation<Bool, Never>? {
            guard items.count <= threshold, let producer = waitingProducer else { return nil }
            waitingProducer = nil
            return producer
        }
    }

    private enum RoomCheck { case room, gone, full }
    private enum Step { case item(Item, CheckedContinuation<Bool, Never>?), ended(Ending), wait, cancelled }

    let capacity: Int
    private let consumerBatch: Int
    private let producerResume: Int
    private let state: LockedState<State>

    init(capacity: Int, consumerBatch: Int = 1, producerResume: Int? = nil) {
        precondition(capacity > 0 && (1...capacity).contains(consumerBatch))
        self.capacity = capacity
        self.consumerBatch = consumerBatch
        self.producerResume = min(max(producerResume ?? capacity - 1, 0), capacity - 1)
        var initial = State()
        initial.items.reserveCapacity(capacity)
        state = LockedState(initial)
    }

    /// The most items that were ever waiting at once.
    var highWaterMark: Int { state.withLock { $0.highWaterMark } }
    var bufferedCount: Int { state.withLock { $0.items.count } }

    // MARK: producer side

    /// Waits until the buffer has room for one more item, so the producer never makes an item it
    /// could not hand over (work ahead, including the item being made, stays within `capacity`).
    /// Returns false when the consumer has gone and the producer should stop.
    func waitForRoom() async -> Bool {
        let now: RoomCheck = state.withLock { s in s.abandoned ? .gone : s.items.count < capacity ? .room : .full }
        switch now {
        case .room: return true
        case .gone: return false
        case .full:
            return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let resumeNow: Bool? = state.withLock { s in
                    if s.abandoned { return false }
                    if s.items.count <= producerResume { return true }
                    s.waitingProducer = continuation
                    return nil
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
            }
        }
    }

    /// Hands an item over (after `waitForRoom`, so there is room): to a waiting consumer once a batch
    /// is ready, else into the buffer.
    func deliver(_ item: Item) {
        let wake: CheckedContinuation<Void, any Error>? = state.withLock { s in
            if s.abandoned { return nil }
            s.highWaterMark = max(s.highWaterMark, s.items.count + 1)
            s.items.append(item)
            guard let consumer = s.waitingConsumer, s.items.count >= consumerBatch else { return nil }
            s.waitingConsumer = nil
            return consumer
        }
        wake?.resume()
    }

    /// The producer is done: the consumer gets the buffered items, then `nil` or the error.
    func finish(_ ending: Ending) {
        let wake: CheckedContinuation<Void, any Error>? = state.withLock { s in
            guard s.ending == nil else { return nil }
            s.ending = ending
            defer { s.waitingConsumer = nil }
            return s.waitingConsumer
        }
        wake?.resume()
    }

    // MARK: consumer side

    /// The next item, waiting for the producer if none is buffered; nil at the end. Throws the
    /// producer's error, or `.cancelled` when the pulling task is cancelled while waiting.
    func pop() async throws -> Item? {
        while true {
            let step: Step = state.withLock { s in
                if !s.items.isEmpty {
                    let item = s.items.removeFirst()
                    return .item(item, s.takeProducer(ifAtMost: producerResume))
                }
                if let ending = s.ending { return .ended(ending) }
                return .wait
            }
            switch step {
            case .item(let item, let producer):
                producer?.resume(returning: true)
                return item
            case .ended(.end): return nil
            case .ended(.failure(let error)): throw error
            case .cancelled: throw AVPipelineError.cancelled
            case .wait: try await waitForDelivery()  // then take what came, under the lock
            }
        }
    }

    /// Suspends until a batch of items (or the end) is there, or throws `.cancelled`.
    private func waitForDelivery() async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now: Step = state.withLock { s in
                    // Checked under the lock: a cancellation handler running later finds the
                    // continuation stored; one that ran earlier has already set the flag.
                    if Task.isCancelled { return .cancelled }
                    if !s.items.isEmpty || s.ending != nil { return .ended(.end) }  // ready: take it
                    s.waitingConsumer = continuation
                    return .wait
                }
                switch now {
                case .wait: break
                case .cancelled: continuation.resume(throwing: AVPipelineError.cancelled)
                default: continuation.resume()
                }
            }
        } onCancel: {
            let consumer = state.withLock { s in
                defer { s.waitingConsumer = nil }
                return s.waitingConsumer
            }
            consumer?.resume(throwing: AVPipelineError.cancelled)
        }
    }

    /// The consumer has gone: buffered items are dropped and a waiting producer is told to stop.
    func abandon() {
        let (producer, dropped): (CheckedContinuation<Bool, Never>?, [Item]) = state.withLock { s in
            s.abandoned = true
            defer { s.waitingProducer = nil; s.items = [] }
            return (s.waitingProducer, s.items)
        }
        _ = dropped  // freed here, outside the lock
        producer?.resume(returning: false)
    }
}

/// What a `BoundedHandoff` carries: an object whose ownership moves with it (as `OwnershipTransfer`
/// says). Not generic: a generic struct's metadata is laid out at run time, the first time a
/// handoff is used, and valgrind reports that layout as a read of undefined memory in
/// `swift_initStructMetadata` (as it did for `DecoderStatistics`).
struct HandedOver: @unchecked Sendable {
    let value: AnyObject

    init(_ value: AnyObject) { self.value = value }
}
