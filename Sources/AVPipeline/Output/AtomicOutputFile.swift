/// An output that appears under its final name only when complete.
///
/// Writing goes to a hidden temporary file in the same folder (so the final rename is atomic);
/// `commit()` moves it into place. If the owner is dropped without committing — an error, a
/// cancellation — the temporary file is removed, so a failed run leaves nothing behind.
///
/// `inPlace` is for crash-safe recordings (fragmented MP4): the file is written under its final
/// name from the start, so a process killed outright leaves it where the user looks; an error or a
/// cancellation still removes it.
final class AtomicOutputFile {
    let finalPath: String
    let temporaryPath: String
    private let overwrite: Bool
    private var committed = false

    init(path: String, overwrite: Bool, inPlace: Bool = false) throws(AVPipelineError) {
        finalPath = path
        self.overwrite = overwrite
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
            return
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var template = Array("\(folder)/.\(name).avpipe-XXXXXX".utf8CString)
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
        if !committed {
            unlink(temporaryPath)
            TemporaryOutputs.unregister(temporaryPath)
        }
    }

    /// Moves the finished temporary file to its final name. Without `overwrite`, a file that
    /// appeared at the final path meanwhile is never replaced (`link` fails on an existing name).
    func commit() throws(AVPipelineError) {
        if temporaryPath == finalPath {
            committed = true
            return
        }
        // mkstemp creates 0600; give the output the permissions a normal new file gets.
        let mask = umask(0)
        umask(mask)
        chmod(temporaryPath, 0o666 & ~mask)
        try TemporaryOutputs.committing(temporaryPath) { () throws(AVPipelineError) in
            if overwrite {
                guard rename(temporaryPath, finalPath) == 0 else {
                    throw .outputNotWritable(path: finalPath, reason: errnoText())
                }
            } else {
                guard link(temporaryPath, finalPath) == 0 else {
                    if errno == EEXIST { throw .outputExists(path: finalPath) }
                    throw .outputNotWritable(path: finalPath, reason: errnoText())
                }
                unlink(temporaryPath)
            }
        }
        committed = true
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }
}
