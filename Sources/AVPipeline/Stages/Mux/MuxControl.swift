import Synchronization

extension Muxer {
    /// Stops a running `Muxer.run()` cleanly, from any task or thread: what was written so far
    /// is finished as if the inputs had ended there (the file indexed and put in place, a stream's
    /// trailer sent, a playlist completed), and `run()` returns its summary normally. Cancelling the
    /// task instead keeps a fragmented or live output too, but `run()` then throws `.cancelled`.
    ///
    /// ```swift
    /// let control = muxer.control
    /// Task { try await Task.sleep(for: .seconds(10)); control.stop() }
    /// let summary = try await muxer.run()   // ten seconds of a live stream, complete
    /// ```
    public final class Control: Sendable {
        private let stopRequested = Atomic(false)

        init() {}

        /// Ends the run at the next packet: the packets waiting from other inputs are dropped, and
        /// an input blocked waiting for data (a live stream) is given up once that data comes.
        public func stop() { stopRequested.store(true, ordering: .releasing) }

        /// Whether `stop()` was called.
        public var isStopped: Bool { stopRequested.load(ordering: .acquiring) }
    }
}
