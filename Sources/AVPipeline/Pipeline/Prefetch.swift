/// Runs its upstream in a task of its own, at most `capacity` buffers ahead of the consumer, so the
/// stages before it and the stages after it work at the same time on two cores (a decoder on one,
/// the resampler and the file writes on the other).
///
/// Backpressure still holds: the upstream is pulled only while fewer than `capacity` buffers wait,
/// and nothing starts before the first pull. Hand-offs between the tasks are batched (a waiting
/// consumer wakes once half the capacity is ready, a waiting producer once three quarters have
/// drained): a wake-up costs ~10 µs, so small buffers must not pay one each. Errors reach the
/// consumer after the buffers made before them; dropping or cancelling the consumer stops the upstream.
///
/// For file-to-file jobs. Real-time work (playback, a live recording) pulls directly, or makes the
/// prefetch `live`: each buffer is handed over as soon as it is made, and the upstream resumes as
/// soon as there is room, since waiting for a batch adds latency (and holds a live device up).
public final class Prefetch<Upstream: SampleSource & SendableMetatype>: SampleSource
where Upstream.Buffer: SendableMetatype {
    /// The upstream's buffers, handed on unchanged.
    public typealias Buffer = Upstream.Buffer

    public let outputFormat: Upstream.Buffer.Format
    private let handoff: BoundedHandoff
    private var upstream: Upstream?
    private var producer: Task<Void, Never>?

    /// Runs `upstream` ahead by at most `capacity` buffers (1…4096) once the first buffer is pulled;
    /// `live`: hands each buffer over at once instead of in batches.
    ///
    /// Throws `.invalidOption` for a capacity outside 1…4096.
    public init(upstream: Upstream, capacity: Int = 128, live: Bool = false) throws {
        guard (1...4096).contains(capacity) else {
            throw AVPipelineError.invalidOption(name: "prefetch capacity", value: "\(capacity)", reason: "must be between 1 and 4096")
        }
        outputFormat = upstream.outputFormat
        self.upstream = upstream
        handoff = live ? BoundedHandoff(capacity: capacity)
            : BoundedHandoff(capacity: capacity, consumerBatch: Swift.max(capacity / 2, 1), producerResume: capacity / 4)
    }

    deinit {
        handoff.abandon()
        producer?.cancel()
    }

    public func next() async throws -> Buffer? {
        if let upstream {
            self.upstream = nil
            start(upstream)
        }
        do {
            try checkCancellation()
            return try await handoff.pop().map { unsafeDowncast($0.value, to: Buffer.self) }
        } catch {
            handoff.abandon()
            producer?.cancel()
            throw error
        }
    }

    /// The most buffers that were ever waiting at once (never above the capacity).
    public var highWaterMark: Int { handoff.highWaterMark }

    private func start(_ upstream: Upstream) {
        // The upstream moves into the producing task and is used by it alone from here on.
        let transfer = OwnershipTransfer(upstream)
        let handoff = handoff
        producer = Task.detached(priority: Task.currentPriority) {
            let upstream = transfer.value
            do {
                while await handoff.waitForRoom() {
                    guard let buffer = try await upstream.next() else {
                        handoff.finish(.end)
                        return
                    }
                    handoff.deliver(HandedOver(buffer as AnyObject))
                }
            } catch {
                handoff.finish(.failure(error))
            }
        }
    }
}

extension SampleSource where Self: SendableMetatype, Buffer: SendableMetatype {
    /// This source run ahead in its own task, up to `capacity` buffers (handed over at once when
    /// `live`): see `Prefetch`.
    public func prefetched(capacity: Int = 128, live: Bool = false) throws -> Prefetch<Self> {
        try Prefetch(upstream: self, capacity: capacity, live: live)
    }
}
