#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Outputs that are written into as they are, as a stream, the way ffmpeg writes them: standard
/// output (`-`), a named pipe (FIFO), a device node (`/dev/null`, a sound card, a tape), and names
/// of an open descriptor (`/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`) whatever file it is.
/// They get no temporary file, no rename and no unlink: replacing one with a regular file would
/// leave a FIFO's reader with nothing and, for `/dev/null`, break the system. Writing into one
/// replaces nothing, so `--overwrite` is not needed; what was written cannot be taken back on
/// failure, and only muxers that need no seeking back can write into them.
public enum StreamOutput {
    /// Whether `path` names an output written as a stream rather than a file made atomically.
    public static func isStream(_ path: String) -> Bool {
        if path == AtomicOutputFile.standardOutput { return true }
        var info = stat()
        if stat(path, &info) == 0 {
            let type = info.st_mode & S_IFMT
            if type != S_IFREG && type != S_IFDIR { return true }
        }
        return namesOpenDescriptor(path)
    }

    /// `/dev/stdout` and its kind are links to whatever a descriptor is open on, even a regular
    /// file (`avpipe … --out /dev/stdout > x`): that file is written, never a new one put in place
    /// of the link, and nothing can be created in /proc anyway.
    private static func namesOpenDescriptor(_ path: String) -> Bool {
        if let folder = realpath(AtomicOutputFile.folder(of: path), nil) {
            defer { free(folder) }
            if String(cString: folder).hasPrefix("/proc/") { return true }
        }
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return false }
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &target, Int(PATH_MAX))
        guard length > 0 else { return false }
        return String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self).hasPrefix("/proc/")
    }
}
