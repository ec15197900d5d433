#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Outputs written side by side (a decode's sound and pictures, a demux's tracks) that succeed or
/// fail together.
public enum OutputGroup {
    /// Waits for every output of a job (each task returns its path, or "" when it writes none). If
    /// one fails, the others are cancelled and any output already in place is removed again: a
    /// failed or interrupted run leaves no file (a pipe or device written as a stream stays: it
    /// holds nothing to take back).
    public static func allOrNothing(_ group: inout ThrowingTaskGroup<String, any Error>) async throws {
        var written: [String] = []
        var failure: (any Error)?
        while let result = await group.nextResult() {
            switch result {
            case .success(let path): written.append(path)
            case .failure(let error):
                if failure == nil { failure = error }
                group.cancelAll()
            }
        }
        guard let failure else { return }
        for path in written where !path.isEmpty && !StreamOutput.isStream(path) { unlink(path) }
        throw failure
    }
}
