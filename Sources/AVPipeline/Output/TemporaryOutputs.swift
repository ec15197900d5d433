import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every temporary output file not yet committed, process-wide, so a process that must end at once
/// (a stop signal while a read is blocked on a pipe or a stalled disk, where cancellation cannot
/// reach) can still leave nothing behind.
public enum TemporaryOutputs {
    private struct State {
        var paths: Set<String> = []
        var closed = false
    }

    private static let state = Mutex(State())

    /// Removes every uncommitted temporary output and refuses new ones and commits from then on.
    /// For a process about to `_exit`; fragmented recordings written in place are kept, as a
    /// killed process would leave them.
    public static func removeAll() {
        state.withLock { state in
            for path in state.paths { unlink(path) }
            state.paths.removeAll()
            state.closed = true
        }
    }

    static func register(_ path: String) throws(AVPipelineError) {
        try state.withLock { state throws(AVPipelineError) in
            guard !state.closed else { throw .cancelled }
            state.paths.insert(path)
        }
    }

    static func unregister(_ path: String) {
        _ = state.withLock { $0.paths.remove(path) }
    }

    /// Runs `commit` (the rename into place) unless `removeAll()` came first, atomically with it.
    static func committing(_ path: String, _ commit: () throws(AVPipelineError) -> Void) throws(AVPipelineError) {
        try state.withLock { state throws(AVPipelineError) in
            guard !state.closed else { throw .cancelled }
            try commit()
            state.paths.remove(path)
        }
    }
}
