/// Hidden temporary outputs (`.NAME.avpipe-PID-XXXXXX`) whose process is gone: a run killed
/// outright on a filesystem without unnamed files leaves one; the next output made in that
/// folder removes it.
enum StaleTemporaryFiles {
    static func marker(pid: pid_t) -> String { ".avpipe-\(pid)-" }

    static func remove(in folder: String) {
        guard let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            // Read in place up to its NUL: a dirent may be shorter than the struct (d_reclen), so
            // copying all of d_name would read bytes readdir never wrote.
            let name = withUnsafePointer(to: &entry.pointee.d_name) { field in
                field.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { String(cString: $0) }
            }
            guard name.hasPrefix("."), let pid = ownerPID(name), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink("\(folder)/\(name)")
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
