#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The names in `folder` (without `.` and `..`), or nil when it cannot be read.
func directoryEntryNames(_ folder: String) -> [String]? {
    guard let directory = opendir(folder) else { return nil }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        // Read in place up to its NUL: a dirent may be shorter than the struct (d_reclen), so
        // copying all of d_name would read bytes readdir never wrote.
        let name = withUnsafePointer(to: &entry.pointee.d_name) { field in
            field.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { String(cString: $0) }
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// Gives the finished file at `from` the name `to`: replacing what is there with `overwrite`,
/// else never (`link` fails on an existing name, even one that appeared meanwhile).
func moveIntoPlace(_ from: String, _ to: String, overwrite: Bool) throws(AVPipelineError) {
    if overwrite {
        guard rename(from, to) == 0 else { throw .outputNotWritable(path: to, reason: errnoText()) }
    } else {
        guard link(from, to) == 0 else {
            if errno == EEXIST { throw .outputExists(path: to) }
            throw .outputNotWritable(path: to, reason: errnoText())
        }
        unlink(from)
    }
}
