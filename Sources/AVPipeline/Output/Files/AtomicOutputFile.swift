/// An output that appears under its final name only when complete.
///
/// On Linux, writing goes to an unnamed file in the target folder (`O_TMPFILE`, reached by FFmpeg as
/// `/proc/self/fd/N`) that `commit()` links into place, so even a process killed outright leaves
/// nothing. Where the filesystem has no unnamed files (or elsewhere), writing goes to a hidden
/// temporary file in the same folder, named with the process id, and renamed into place; such files
/// left by dead processes are removed by the next output made in that folder. If the owner is
/// dropped without committing — an error, a cancellation — the temporary file is removed, so a
/// failed run leaves nothing behind.
///
/// `inPlace` is for crash-safe recordings (fragmented MP4): the file is written under its final
/// name from the start, so a process killed outright leaves it where the user looks; an error or a
/// cancellation still removes it.
///
/// A `StreamOutput` (standard output, a FIFO, a device) is written into as it is: no temporary
/// file, nothing to commit or take back, and no `overwrite` needed.
final class AtomicOutputFile {
    let finalPath: String
    let temporaryPath: String
    private let overwrite: Bool
    private var committed = false
    /// The unnamed file's descriptor (`temporaryPath` is its /proc name), when there is one.
    private let unnamed: Int32?
    /// Written into as it is (`StreamOutput`): `temporaryPath` is what FFmpeg opens for it.
    let isStream: Bool

    /// The name that stands for standard output: written as a stream, with no temporary file (so
    /// nothing to take back on failure) and only by muxers that need no seeking.
    static let standardOutput = "-"
    /// What FFmpeg opens for it.
    static let standardOutputURL = "pipe:1"

    init(path: String, overwrite: Bool, inPlace: Bool = false) throws(AVPipelineError) {
        finalPath = path
        self.overwrite = overwrite
        if StreamOutput.isStream(path) {
            temporaryPath = path == Self.standardOutput ? Self.standardOutputURL : path
            unnamed = nil
            isStream = true
            return
        }
        isStream = false
        let folder = Self.folder(of: path)
        var info = stat()
        if stat(folder, &info) != 0 || (info.st_mode & S_IFMT) != S_IFDIR {
            throw .outputNotWritable(path: path, reason: "folder '\(folder)' does not exist")
        }
        if stat(path, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFDIR { throw .outputNotWritable(path: path, reason: "is a directory") }
            if !overwrite { throw .outputExists(path: path) }
        }
        if inPlace {
            let fd = open(path, O_WRONLY | O_CREAT | (overwrite ? O_TRUNC : O_EXCL), 0o666)
            guard fd >= 0 else {
                if errno == EEXIST { throw .outputExists(path: path) }
                throw .outputNotWritable(path: path, reason: errnoText())
            }
            close(fd)
            temporaryPath = path
            unnamed = nil
            return
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        StaleTemporaryFiles.remove(in: folder)
        if let fd = Self.openUnnamed(in: folder) {
            temporaryPath = "/proc/self/fd/\(fd)"
            unnamed = fd
            // Registered so that a commit after `TemporaryOutputs.removeAll()` is refused.
            do { try TemporaryOutputs.register(temporaryPath) } catch { close(fd); throw error }
            return
        }
        unnamed = nil
        var template = Array("\(folder)/.\(name)\(StaleTemporaryFiles.marker(pid: getpid()))XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .outputNotWritable(path: path, reason: errnoText()) }
        close(fd)
        let temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        do {
            try TemporaryOutputs.register(temporaryPath)
        } catch {
            unlink(temporaryPath)
            throw error
        }
        self.temporaryPath = temporaryPath
    }

    deinit {
        if isStream { return }
        if let unnamed {
            close(unnamed)
            if !committed { TemporaryOutputs.unregister(temporaryPath) }
        } else if !committed {
            unlink(temporaryPath)
            TemporaryOutputs.unregister(temporaryPath)
        }
    }

    /// An unnamed file in `folder` that /proc can reach, or nil where either is missing.
    private static func openUnnamed(in folder: String) -> Int32? {
        #if os(Linux)
        let oTmpfile: Int32 = 0o20000000 | O_DIRECTORY  // O_TMPFILE (not importable: a compound macro)
        let fd = open(folder, oTmpfile | O_RDWR, 0o666)
        guard fd >= 0 else { return nil }
        guard access("/proc/self/fd/\(fd)", W_OK) == 0 else {
            close(fd)
            return nil
        }
        return fd
        #else
        return nil
        #endif
    }

    /// Moves the finished temporary file to its final name. Without `overwrite`, a file that
    /// appeared at the final path meanwhile is never replaced (`link` fails on an existing name).
    func commit() throws(AVPipelineError) {
        if temporaryPath == finalPath || isStream {
            committed = true
            return
        }
        if unnamed != nil {
            try TemporaryOutputs.committing(temporaryPath) { () throws(AVPipelineError) in try linkUnnamed() }
            committed = true
            return
        }
        // mkstemp creates 0600; give the output the permissions a normal new file gets.
        let mask = umask(0)
        umask(mask)
        chmod(temporaryPath, 0o666 & ~mask)
        try TemporaryOutputs.committing(temporaryPath) { () throws(AVPipelineError) in
            try moveIntoPlace(temporaryPath, finalPath, overwrite: overwrite)
        }
        committed = true
    }

    /// Gives the unnamed file its final name (its mode came from `open`, the umask applied). Without
    /// `overwrite` an existing name is never replaced; with it, the file is linked under a
    /// temporary name and renamed over the old one, atomically.
    private func linkUnnamed() throws(AVPipelineError) {
        if !overwrite {
            guard linkat(AT_FDCWD, temporaryPath, AT_FDCWD, finalPath, AT_SYMLINK_FOLLOW) == 0 else {
                if errno == EEXIST { throw .outputExists(path: finalPath) }
                throw .outputNotWritable(path: finalPath, reason: errnoText())
            }
            return
        }
        let name = finalPath.split(separator: "/").last.map(String.init) ?? finalPath
        let suffix = String((0..<6).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789".randomElement()! })
        let staging = "\(Self.folder(of: finalPath))/.\(name)\(StaleTemporaryFiles.marker(pid: getpid()))\(suffix)"
        guard linkat(AT_FDCWD, temporaryPath, AT_FDCWD, staging, AT_SYMLINK_FOLLOW) == 0 else {
            throw .outputNotWritable(path: finalPath, reason: errnoText())
        }
        guard rename(staging, finalPath) == 0 else {
            let reason = errnoText()
            unlink(staging)
            throw .outputNotWritable(path: finalPath, reason: reason)
        }
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }
}
