/// Hidden temporary outputs (`.NAME.avpipe-PID-XXXXXX`, a file or an HLS staging folder) whose process is gone: a run killed
/// outright on a filesystem without unnamed files leaves one; the next output made in that
/// folder removes it.
enum StaleTemporaryFiles {
    static func marker(pid: pid_t) -> String { ".avpipe-\(pid)-" }

    static func remove(in folder: String) {
        for name in directoryEntryNames(folder) ?? [] {
            guard name.hasPrefix("."), let pid = ownerPID(name), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            let path = "\(folder)/\(name)"
            // An HLS stream's staging folder, or a file.
            if unlink(path) != 0 && (errno == EISDIR || errno == EPERM) { HLSFolder.removeFolder(path) }
        }
    }

    /// The process id in a temporary file's name, if it is one of ours.
    static func ownerPID(_ name: String) -> pid_t? {
        guard let marker = name.firstRange(of: ".avpipe-") else { return nil }
        let rest = name[marker.upperBound...]
        guard let dash = rest.firstIndex(of: "-"), rest[rest.index(after: dash)...].count == 6 else { return nil }
        return pid_t(rest[..<dash])
    }
}
