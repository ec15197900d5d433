#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every temporary output file not yet committed, process-wide, so a process that must end at once
/// (a stop signal while a read is blocked on a pipe or a stalled disk, where cancellation cannot
/// reach) can still leave nothing behind. Only the program that owns the process may use it (the
/// command line, through `package` access): it closes the registry for good, so a library user
/// calling it would make every later output in the process fail.
public enum TemporaryOutputs {
    /// Removes every uncommitted temporary output and refuses new ones and commits from then on.
    /// For a process about to `_exit`; fragmented recordings written in place are kept, as a
    /// killed process would leave them. `package`: not for library users (see the type's comment).
    package static func removeAll() {
        registry.locked { paths, closed in
            for path in paths { unlink(path) }
            paths.removeAll()
            closed = true
        }
    }

    static func register(_ path: String) throws(AVPipelineError) {
        try registry.locked { paths, closed throws(AVPipelineError) in
            guard !closed else { throw .cancelled }
            paths.insert(path)
        }
    }

    static func unregister(_ path: String) {
        registry.locked { paths, _ in _ = paths.remove(path) }
    }

    /// Runs `commit` (the rename into place) unless `removeAll()` came first, atomically with it.
    static func committing(_ path: String, _ commit: () throws(AVPipelineError) -> Void) throws(AVPipelineError) {
        try registry.locked { paths, closed throws(AVPipelineError) in
            guard !closed else { throw .cancelled }
            try commit()
            paths.remove(path)
        }
    }

    private static let registry = Registry()

    /// The set behind a pthread mutex rather than `Synchronization.Mutex`: this one is shared by
    /// every writer of the process, and ThreadSanitizer sees pthread locking (it does not see
    /// Mutex's futex on Linux, and reports the contended accesses as races).
    /// `@unchecked Sendable`: `paths` and `closed` are only touched inside `locked`, under `mutex`.
    private final class Registry: @unchecked Sendable {
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>
        private var paths: Set<String> = []
        private var closed = false

        init() {
            mutex = .allocate(capacity: 1)
            pthread_mutex_init(mutex, nil)
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }

        func locked<R, E: Error>(_ body: (inout Set<String>, inout Bool) throws(E) -> R) throws(E) -> R {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&paths, &closed)
        }
    }
}
