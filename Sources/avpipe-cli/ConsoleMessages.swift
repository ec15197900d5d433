#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A line on stdout (results a user may pipe on).
func printLine(_ text: String) { writeAll(STDOUT_FILENO, text + "\n") }

/// A one-line heads-up on stderr that does not change the outcome.
func printNotice(_ message: String) {
    ProgressLine.closeOpenLine()
    writeAll(STDERR_FILENO, "avpipe: notice: \(message)\n")
}

/// A one-line warning on stderr about something that went wrong but did not stop the run.
func printWarning(_ message: String) {
    ProgressLine.closeOpenLine()
    writeAll(STDERR_FILENO, "avpipe: warning: \(message)\n")
}

private func writeAll(_ fd: Int32, _ text: String) {
    var text = text
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n <= 0 { return }
            offset += n
        }
    }
}
