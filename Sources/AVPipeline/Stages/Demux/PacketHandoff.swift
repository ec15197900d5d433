import Synchronization

/// The bounded buffer between one track's reading task and the task that pulls the track: at most
/// `capacity` packets wait in it. The reader suspends when it is full and the consumer when it is
/// empty, so read-ahead never exceeds the bound whatever the consumer's pace. Continuations are
/// always resumed after the lock is released.
final class PacketHandoff: Sendable {
    /// A packet in transit. `@unchecked Sendable`: ownership moves with it — the reader never touches
    /// a packet after `push`, and only the consumer touches it after `pop`.
    struct Item: @unchecked Sendable { let packet: Packet }

    enum Ending: Sendable { case end, failure(AVPipelineError) }

    private struct State {
        var items: [Item] = []
        var highWaterMark = 0
        var ending: Ending?
        var abandoned = false
        var waitingConsumer: CheckedContinuation<Item?, any Error>?
        var waitingProducer: CheckedContinuation<Bool, Never>?
    }

    let capacity: Int
    private let state: Mutex<State>

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        var initial = State()
        initial.items.reserveCapacity(capacity)
        state = Mutex(initial)
    }

    /// The most packets that were ever waiting at once.
    var highWaterMark: Int { state.withLock { $0.highWaterMark } }
    var bufferedCount: Int { state.withLock { $0.items.count } }

    // MARK: reader side

    /// Hands a packet over, waiting while the buffer is full. Returns false when the consumer has
    /// gone (the packet is dropped and the reader should stop).
    func push(_ item: Item) async -> Bool {
        while true {
            enum Step { case done(Bool, CheckedContinuation<Item?, any Error>?), wait }
            let step: Step = state.withLock { s in
                if s.abandoned { return .done(false, nil) }
                if let consumer = s.waitingConsumer {
                    s.waitingConsumer = nil
                    s.highWaterMark = max(s.highWaterMark, 1)
                    return .done(true, consumer)
                }
                guard s.items.count < capacity else { return .wait }
                s.items.append(item)
                s.highWaterMark = max(s.highWaterMark, s.items.count)
                return .done(true, nil)
            }
            switch step {
            case .done(let accepted, let consumer):
                consumer?.resume(returning: item)
                return accepted
            case .wait:
                let keepGoing = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let resumeNow: Bool? = state.withLock { s in
                        if s.abandoned { return false }
                        if s.items.count < capacity { return true }
                        s.waitingProducer = continuation
                        return nil
                    }
                    if let resumeNow { continuation.resume(returning: resumeNow) }
                }
                if !keepGoing { return false }
            }
        }
    }

    /// The reader is done: the consumer gets the buffered packets, then `nil` or the error.
    func finish(_ ending: Ending) {
        let consumer: CheckedContinuation<Item?, any Error>? = state.withLock { s in
            guard s.ending == nil else { return nil }
            s.ending = ending
            defer { s.waitingConsumer = nil }
            return s.items.isEmpty ? s.waitingConsumer : nil
        }
        guard let consumer else { return }
        switch ending {
        case .end: consumer.resume(returning: nil)
        case .failure(let error): consumer.resume(throwing: error)
        }
    }

    // MARK: consumer side

    /// The next packet, waiting for the reader if none is buffered; nil at the end. Throws the
    /// reader's error, or `.cancelled` when the pulling task is cancelled while waiting.
    func pop() async throws -> Item? {
        enum Step { case item(Item, CheckedContinuation<Bool, Never>?), ended(Ending), wait }
        let step: Step = state.withLock { s in
            if !s.items.isEmpty {
                let item = s.items.removeFirst()
                let producer = s.waitingProducer
                s.waitingProducer = nil
                return .item(item, producer)
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
        case .wait:
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Item?, any Error>) in
                    enum Now { case wait, cancelled, ended(Ending), item(Item, CheckedContinuation<Bool, Never>?) }
                    let now: Now = state.withLock { s in
                        // Checked under the lock: a cancellation handler running later finds the
                        // continuation stored; one that ran earlier has already set the flag.
                        if Task.isCancelled { return .cancelled }
                        if !s.items.isEmpty {
                            let producer = s.waitingProducer
                            s.waitingProducer = nil
                            return .item(s.items.removeFirst(), producer)
                        }
                        if let ending = s.ending { return .ended(ending) }
                        s.waitingConsumer = continuation
                        return .wait
                    }
                    switch now {
                    case .wait: break
                    case .cancelled: continuation.resume(throwing: AVPipelineError.cancelled)
                    case .ended(.end): continuation.resume(returning: nil)
                    case .ended(.failure(let error)): continuation.resume(throwing: error)
                    case .item(let item, let producer):
                        producer?.resume(returning: true)
                        continuation.resume(returning: item)
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
    }

    /// The consumer has gone: buffered packets are dropped and a waiting reader is told to stop.
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
