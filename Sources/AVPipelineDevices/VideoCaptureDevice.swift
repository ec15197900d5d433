import AVPipeline
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A source of pictures to capture on Linux: an X11 screen (libavdevice's `x11grab`), the whole of
/// it or a region, or a V4L2 camera. Both open the same way (a device demuxer, see
/// `VideoCaptureSource`), so the camera path is the screen path with another demuxer name.
public enum VideoCaptureDevice: VideoCaptureSource, Equatable {
    /// An X11 display (`:0`, `:1.0`; nil: `$DISPLAY`), whole or the `region` of it.
    case screen(display: String? = nil, region: ScreenRegion? = nil)
    /// A V4L2 camera by its device node (`/dev/video0`).
    case camera(path: String)

    /// "screen :0 region 640x480+0+0", "camera /dev/video0".
    public var description: String {
        switch self {
        case .screen(let display, let region):
            "screen \(display ?? Self.environmentDisplay ?? "(none)")" + (region.map { " region \($0)" } ?? "")
        case .camera(let path): "camera \(path)"
        }
    }

    /// The display `$DISPLAY` names, if any.
    static var environmentDisplay: String? {
        getenv("DISPLAY").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// How libavdevice opens it, asking for `frameRate` and, for a camera, `size`.
    public func opening(frameRate: Rational, size: (width: Int, height: Int)?) throws -> DeviceOpening {
        var options = ["framerate": "\(frameRate.numerator)/\(frameRate.denominator)"]
        switch self {
        case .screen(let display, let region):
            if let region, !(1...16384).contains(region.width) || !(1...16384).contains(region.height) {
                throw AVPipelineError.invalidOption(name: "region", value: "\(region)", reason: "each side must be between 1 and 16384 pixels")
            }
            guard let display = display ?? Self.environmentDisplay else {
                throw AVPipelineError.deviceUnavailable(.screen, reason: "no display to capture: DISPLAY is not set (name one, e.g. :0)")
            }
            var name = display
            if let region {
                options["video_size"] = "\(region.width)x\(region.height)"
                name += "+\(region.x),\(region.y)"
            }
            return DeviceOpening(kind: .screen, demuxer: "x11grab", name: name, options: options, label: "display \(display)")
        case .camera(let path):
            if let size { options["video_size"] = "\(size.width)x\(size.height)" }
            guard access(path, F_OK) == 0 else { throw AVPipelineError.deviceUnavailable(.camera, reason: "\(path): no such device") }
            guard access(path, R_OK) == 0 else { throw AVPipelineError.deviceUnavailable(.camera, reason: "\(path): permission denied (is the user in the 'video' group?)") }
            return DeviceOpening(kind: .camera, demuxer: "v4l2", name: path, options: options, label: path)
        }
    }

    /// The X11 displays this machine runs (`:N`, from the servers' sockets in /tmp/.X11-unix),
    /// `$DISPLAY`'s first.
    public static func screens() -> [String] {
        let sockets = entries(of: "/tmp/.X11-unix").filter { $0.hasPrefix("X") && Int($0.dropFirst()) != nil }
        let running = sockets.map { ":" + String($0.dropFirst()) }.sorted(by: numberedOrder)
        guard let current = environmentDisplay else { return running }
        return [current] + running.filter { $0 != current && $0 + ".0" != current }
    }

    /// The cameras this machine has (`/dev/video*` device nodes), sorted.
    public static func cameras() -> [String] {
        let nodes = entries(of: "/dev").filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
        return nodes.map { "/dev/" + $0 }.sorted(by: numberedOrder)
    }

    /// `video2` before `video10`.
    private static func numberedOrder(_ a: String, _ b: String) -> Bool { a.count != b.count ? a.count < b.count : a < b }

    private static func entries(of path: String) -> [String] {
        guard let folder = opendir(path) else { return [] }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        return names
    }
}

extension VideoCapture.Options {
    /// `device` at 30 pictures a second, until stopped, unless told otherwise; spelled for this
    /// module's devices, so that `VideoCapture.Options(device: .screen())` reads as it did.
    public init(device: VideoCaptureDevice, frameRate: Rational = Rational(30, 1), size: (width: Int, height: Int)? = nil,
                queueLength: Int? = nil, duration: MediaTime? = nil, clock: CaptureClock? = nil, stallTimeout: Double = 5) {
        self.init(device: device as any VideoCaptureSource, frameRate: frameRate, size: size, queueLength: queueLength,
                  duration: duration, clock: clock, stallTimeout: stallTimeout)
    }
}

/// A rectangle of the screen: `width`×`height` pixels with its top-left corner at (`x`, `y`).
public struct ScreenRegion: Sendable, Equatable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Left edge, in pixels from the screen's left.
    public var x: Int
    /// Top edge, in pixels from the screen's top.
    public var y: Int

    /// `width`×`height` pixels at (`x`, `y`), the top-left corner by default.
    public init(width: Int, height: Int, x: Int = 0, y: Int = 0) {
        self.width = width
        self.height = height
        self.x = x
        self.y = y
    }

    /// Reads X11's geometry notation, `WxH+X+Y` (the offset optional): nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: "+", omittingEmptySubsequences: false)
        let size = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]), width > 0, height > 0,
              parts.count == 1 || parts.count == 3 else { return nil }
        let offset = parts.count == 3 ? (Int(parts[1]), Int(parts[2])) : (0, 0)
        guard let x = offset.0, let y = offset.1, x >= 0, y >= 0 else { return nil }
        self.init(width: width, height: height, x: x, y: y)
    }

    /// `WxH+X+Y`.
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
