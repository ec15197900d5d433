import Foundation

/// A private headless X server (Xvfb) for tests that open real SDL2 windows, take screenshots
/// (`xwd`) and press keys (`xdotool`). It picks a free display number itself (`-displayfd`) and is
/// killed when released.
public final class XvfbServer: @unchecked Sendable {
    public let display: String
    private let process: Process
    private var windowManager: Process?

    /// Environment for clients: this display, and no Wayland.
    public var environment: [String: String] { ["DISPLAY": display, "WAYLAND_DISPLAY": ""] }

    /// What is missing to start a server, or nil: the tests that need one are skipped without it.
    public static func missingTool(windowManager: Bool = false) -> String? {
        for tool in ["Xvfb", "xwd", "xdotool"] + (windowManager ? ["openbox"] : []) where !Subprocess.isAvailable(tool) {
            return "\(tool) is not installed (scripts/setup.sh installs xvfb, x11-apps, xdotool and openbox)"
        }
        return nil
    }

    /// A started server; where the tools are installed, one that does not start is a failure.
    public static func started(width: Int = 1920, height: Int = 1080, windowManager: Bool = false) throws -> XvfbServer {
        let (server, reason) = start(width: width, height: height, windowManager: windowManager)
        guard let server else { throw TestFailure(reason ?? "Xvfb did not start") }
        return server
    }

    /// Starts the server (with openbox as window manager when asked: full screen needs one), or
    /// returns nil with the reason where Xvfb and its tools are missing.
    public static func start(width: Int = 1920, height: Int = 1080, windowManager: Bool = false) -> (server: XvfbServer?, reason: String?) {
        if let missing = missingTool(windowManager: windowManager) { return (nil, missing) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let ready = Pipe()
        process.arguments = ["Xvfb", "-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp", "-noreset"]
        process.standardOutput = ready
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return (nil, "Xvfb could not be run: \(error)") }
        // Xvfb writes the display number it took once it accepts connections.
        var number = ""
        let handle = ready.fileHandleForReading
        while let byte = try? handle.read(upToCount: 1), let character = byte.first, character != 0x0A {
            number.append(Character(UnicodeScalar(character)))
        }
        guard !number.isEmpty, process.isRunning else { return (nil, "Xvfb did not start") }
        let server = XvfbServer(display: ":\(number)", process: process)
        if windowManager {
            let manager = Process()
            manager.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            manager.arguments = ["openbox", "--sm-disable"]
            manager.environment = ProcessInfo.processInfo.environment.merging(server.environment) { $1 }
            manager.standardOutput = FileHandle.nullDevice
            manager.standardError = FileHandle.nullDevice
            do { try manager.run() } catch { return (nil, "openbox could not be run: \(error)") }
            server.windowManager = manager
            usleep(800_000)  // it has taken over the root window by then
        }
        return (server, nil)
    }

    private init(display: String, process: Process) {
        self.display = display
        self.process = process
    }

    deinit {
        for child in [windowManager, process].compactMap({ $0 }) {
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
    }
}

/// A child process left running while a test drives it (`avpipe play`), with its output collected.
public final class RunningProcess: @unchecked Sendable {
    private let process = Process()
    private let output = LockedBox(Data())
    private let errors = LockedBox(Data())
    private let done = DispatchGroup()
    private let input: Pipe?

    /// `acceptsInput` keeps the child's standard input open for `send(_:)`; otherwise it reads
    /// /dev/null.
    public init(_ executable: String, _ arguments: [String], environment: [String: String], acceptsInput: Bool = false) throws {
        input = acceptsInput ? Pipe() : nil
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input ?? FileHandle.nullDevice
        try process.run()
        for (pipe, box) in [(out, output), (err, errors)] {
            done.enter()
            DispatchQueue.global().async { [done] in
                box.set(pipe.fileHandleForReading.readDataToEndOfFile())
                done.leave()
            }
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    public var isRunning: Bool { process.isRunning }

    /// Writes to the child's standard input (see `acceptsInput`).
    public func send(_ text: String) {
        try? input?.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }
    public var identifier: Int32 { process.processIdentifier }

    /// Waits up to `seconds` for the process to end; its result, or nil (it is then killed).
    public func finish(within seconds: Double) -> ProcessResult? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        let ended = !process.isRunning
        if !ended { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        done.wait()
        guard ended else { return nil }
        return ProcessResult(status: process.terminationStatus, stdout: output.get(), stderr: errors.get(),
                             diedOfSignal: process.terminationReason == .uncaughtSignal)
    }
}
