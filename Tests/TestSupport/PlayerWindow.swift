import Foundation

/// The window of a running player on an `XvfbServer`, seen from outside as a user would: found by
/// its title, photographed with `xwd`, driven with `xdotool` key presses.
public struct PlayerWindow: Sendable {
    public let id: String
    public let width: Int
    public let height: Int
    private let environment: [String: String]

    /// Waits (up to `timeout` seconds) for a window titled `title` to be mapped.
    public static func find(title: String, on server: XvfbServer, timeout: Double = 60) throws -> PlayerWindow {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let search = try Subprocess.run("xdotool", ["search", "--onlyvisible", "--name", title], environment: server.environment)
            if let id = search.stdoutText.split(separator: "\n").first.map(String.init),
               let window = try? PlayerWindow(id: id, width: 0, height: 0, environment: server.environment).refreshed() {
                return window
            }
            usleep(100_000)
        }
        throw TestFailure("no window titled '\(title)' appeared within \(timeout) s")
    }

    /// The same window with its size read again (after a resize or a full-screen toggle).
    public func refreshed() throws -> PlayerWindow {
        let geometry = try Subprocess.run("xdotool", ["getwindowgeometry", "--shell", id], environment: environment)
        var fields: [String: Int] = [:]
        for line in geometry.stdoutText.split(separator: "\n") {
            let pair = line.split(separator: "=")
            if pair.count == 2, let value = Int(pair[1]) { fields[String(pair[0])] = value }
        }
        guard let width = fields["WIDTH"], let height = fields["HEIGHT"] else {
            throw TestFailure("xdotool getwindowgeometry: \(geometry.stderrText)")
        }
        return PlayerWindow(id: id, width: width, height: height, environment: environment)
    }

    /// A gray screenshot at the window's size that `accept` takes and that the next one repeats:
    /// the picture a key, a seek or a resize led to, once shown and held (so only while paused).
    /// Polls for up to `timeout` seconds, however slow the loaded machine is.
    public func settledScreenshot(timeout: Double = 60, awaiting step: String = "", accept: ([UInt8]) -> Bool = { _ in true }) throws -> [UInt8] {
        let deadline = Date().addingTimeInterval(timeout)
        var last = try screenshot(pixelFormat: "gray")
        while Date() < deadline {
            usleep(50_000)
            let next = try screenshot(pixelFormat: "gray")
            if next == last && accept(next) { return next }
            last = next
        }
        throw TestFailure("the window showed no settled picture of the kind awaited\(step.isEmpty ? "" : " (\(step))") within \(timeout) s")
    }

    /// Waits until the window shows something other than black (the player has begun showing).
    public func awaitPicture(timeout: Double = 60) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try screenshot(pixelFormat: "gray", width: 32, height: 18).contains(where: { $0 > 40 }) { return }
            usleep(50_000)
        }
        throw TestFailure("the window stayed black for \(timeout) s")
    }

    /// Closes the window as a user does through the window manager: activates it and presses
    /// Alt+F4 through XTEST, which openbox (`XvfbServer.start(windowManager: true)`) binds to Close
    /// and turns into WM_DELETE_WINDOW for the client. (xdotool 3.2016's `windowclose` destroys
    /// the window from outside instead, which no application sees as a request to close.)
    public func closeThroughWindowManager() throws {
        for arguments in [["windowactivate", "--sync", id], ["key", "alt+F4"]] {
            let result = try Subprocess.run("xdotool", arguments, environment: environment)
            guard result.status == 0 else { throw TestFailure("xdotool \(arguments.joined(separator: " ")): \(result.stderrText)") }
        }
    }

    /// Presses a key in the window (xdotool names: space, Left, Right, q, Escape…).
    public func press(_ key: String) throws {
        let result = try Subprocess.run("xdotool", ["key", "--window", id, key], environment: environment)
        guard result.status == 0 else { throw TestFailure("xdotool key \(key): \(result.stderrText)") }
    }

    /// Presses `key` (q, Escape) to quit: a BadWindow from xdotool is no failure. The window may
    /// have closed already (the player reached the end of a short clip on a slow machine), or it
    /// closes on the key press itself before xdotool sends the key release (12 ms later) to it.
    /// The caller checks the player's exit status either way.
    public func quit(with key: String = "q") throws {
        let result = try Subprocess.run("xdotool", ["key", "--window", id, key], environment: environment)
        guard result.status == 0 || result.stderrText.contains("BadWindow") else { throw TestFailure("xdotool key \(key): \(result.stderrText)") }
    }

    /// The window's pixels now, as `pixelFormat` (gray, rgb24) at `width`×`height` (default: the
    /// window's size), converted from an xwd dump by ffmpeg.
    public func screenshot(pixelFormat: String = "rgb24", width: Int? = nil, height: Int? = nil) throws -> [UInt8] {
        let folder = TemporaryDirectory("avpipe-shot")
        let dump = folder.file("window.xwd")
        let taken = try Subprocess.run("xwd", ["-id", id, "-silent", "-out", dump], environment: environment)
        guard taken.status == 0 else { throw TestFailure("xwd: \(taken.stderrText)") }
        let size = "\(width ?? self.width)x\(height ?? self.height)"
        let converted = try Subprocess.run("ffmpeg", ["-v", "error", "-i", dump, "-vf", "scale=\(size):flags=area",
                                                      "-f", "rawvideo", "-pix_fmt", pixelFormat, "-"])
        guard converted.status == 0 else { throw TestFailure("converting the screenshot: \(converted.stderrText)") }
        return [UInt8](converted.stdout)
    }
}

/// Picture comparisons for screenshots against reference frames.
public enum PictureComparison {
    /// Peak signal-to-noise ratio of two 8-bit pictures of the same layout, in dB (∞ when equal).
    public static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && !a.isEmpty, "pictures of different sizes")
        var sum = 0.0
        for i in a.indices {
            let d = Double(Int(a[i]) - Int(b[i]))
            sum += d * d
        }
        let mse = sum / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// Every frame of `path` as ffmpeg decodes it (display order, rotation applied), each
    /// `width`×`height` `pixelFormat` bytes; the reference to find a screenshot's frame in.
    /// `frames`: only the first so many.
    public static func referenceFrames(_ path: String, width: Int, height: Int, pixelFormat: String = "gray",
                                       bytesPerPixel: Int = 1, frames: Int? = nil) throws -> [[UInt8]] {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-vf", "scale=\(width)x\(height):flags=area"]
                                        + (frames.map { ["-frames:v", "\($0)"] } ?? []) + ["-f", "rawvideo", "-pix_fmt", pixelFormat, "-"])
        guard result.status == 0 else { throw TestFailure("ffmpeg decoding \(path): \(result.stderrText)") }
        let size = width * height * bytesPerPixel
        let bytes = [UInt8](result.stdout)
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<$0 + size]) }
    }

    /// `count` frames of `path` from display index `first`, as ffmpeg decodes them, gray at their
    /// size: the frames a picture at a known position must be.
    public static func grayFrames(_ path: String, from first: Int, count: Int) throws -> [[UInt8]] {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", path, "-vf", "select=between(n\\,\(first)\\,\(first + count - 1))",
                                                   "-vsync", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        guard result.status == 0 else { throw TestFailure("ffmpeg: \(result.stderrText)") }
        let bytes = [UInt8](result.stdout)
        guard bytes.count % count == 0, !bytes.isEmpty else { throw TestFailure("ffmpeg gave \(bytes.count) bytes for \(count) frames") }
        let size = bytes.count / count
        return (0..<count).map { Array(bytes[$0 * size ..< ($0 + 1) * size]) }
    }

    /// The index of the reference frame closest to `picture`, and its PSNR.
    public static func bestMatch(_ picture: [UInt8], in frames: [[UInt8]]) -> (index: Int, psnr: Double) {
        var best = (index: 0, psnr: -Double.infinity)
        for (index, frame) in frames.enumerated() {
            let value = psnr(picture, frame)
            if value > best.psnr { best = (index, value) }
        }
        return best
    }
}
