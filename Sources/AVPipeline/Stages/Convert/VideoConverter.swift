internal import CFFmpeg

/// What a sink needs its pictures to be: a pixel format, a size, upright or as stored.
public struct VideoConversion: Sendable, Equatable {
    /// nil keeps each picture's format.
    public var pixelFormat: PixelFormat?
    /// Output size. Both nil: the (upright) picture's size; one nil: from the other, keeping the
    /// picture's proportions (as ffmpeg's `scale=W:-1`).
    public var width: Int?
    /// Output height; see `width`.
    public var height: Int?
    /// Apply the track's rotation and mirroring, so the pictures show as the track says.
    public var upright: Bool

    /// A conversion to the format, size and orientation given; the defaults change nothing.
    public init(pixelFormat: PixelFormat? = nil, width: Int? = nil, height: Int? = nil, upright: Bool = false) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.upright = upright
    }

    /// The output size for a (turned) picture of `width`×`height`.
    func size(forWidth inWidth: Int, height inHeight: Int) -> (width: Int, height: Int) {
        switch (width, height) {
        case let (width?, height?): (width, height)
        case let (width?, nil): (width, Int(av_rescale(Int64(width), Int64(inHeight), Int64(inWidth))))
        case let (nil, height?): (Int(av_rescale(Int64(height), Int64(inWidth), Int64(inHeight))), height)
        case (nil, nil): (inWidth, inHeight)
        }
    }
}

/// Converts pictures only where a sink needs another format: turns them upright (rotation and
/// mirroring moved sample by sample, as ffmpeg's autorotate does), then scales and converts the
/// pixel format through libswscale (bicubic, the picture's colour matrix and range). A picture that
/// already fits is handed on untouched.
public final class VideoConverter<Upstream: SampleSource>: SampleSource where Upstream.Buffer == VideoFrame {
    /// Pictures as the conversion makes them.
    public typealias Buffer = VideoFrame
    public let outputFormat: VideoFormat
    /// What the pictures are converted to.
    public let conversion: VideoConversion
    private let upstream: Upstream
    private var scaler: Scaler?

    /// Converts `upstream`'s pictures as `conversion` says. Throws `.invalidOption` for a size outside 1…16384 pixels.
    public init(upstream: Upstream, conversion: VideoConversion) throws {
        for (name, value) in [("width", conversion.width), ("height", conversion.height)] {
            if let value, !(1...16384).contains(value) {
                throw AVPipelineError.invalidOption(name: name, value: "\(value)", reason: "must be between 1 and 16384 pixels")
            }
        }
        self.upstream = upstream
        self.conversion = conversion
        outputFormat = Self.converted(upstream.outputFormat, conversion)
    }

    public func next() async throws -> VideoFrame? {
        guard let picture = try await upstream.next() else { return nil }
        try checkCancellation()
        let format = picture.format
        var frame = picture.frame
        if conversion.upright && (format.rotation != 0 || format.isMirrored) {
            frame = try PlaneTransform.upright(frame.pointer, rotation: format.rotation, mirrored: format.isMirrored)
        }
        let target = Self.converted(format, conversion)
        let width = Int(frame.pointer.pointee.width), height = Int(frame.pointer.pointee.height)
        if target.pixelFormat != format.pixelFormat || target.width != width || target.height != height {
            frame = try scaler(from: (format.pixelFormat, width, height), to: (target.pixelFormat, target.width, target.height),
                               frame: frame).convert(frame.pointer)
        }
        return VideoFrame(frame: frame, format: target)
    }

    private func scaler(from source: (format: PixelFormat, width: Int, height: Int), to target: (format: PixelFormat, width: Int, height: Int),
                        frame: Frame) throws(AVPipelineError) -> Scaler {
        if let scaler, scaler.source == source, scaler.target == target { return scaler }
        let made = try Scaler(from: source, to: target, colorSpace: frame.pointer.pointee.colorspace,
                              sourceRange: frame.pointer.pointee.color_range)
        scaler = made
        return made
    }

    /// `format` after `conversion`: turned, resized, reformatted.
    static func converted(_ format: VideoFormat, _ conversion: VideoConversion) -> VideoFormat {
        var result = format
        if conversion.upright {
            result.width = format.displayWidth
            result.height = format.displayHeight
            if format.rotation == 90 || format.rotation == 270, let sar = format.sampleAspectRatio {
                result.sampleAspectRatio = Rational(sar.denominator, sar.numerator)
            }
            result.rotation = 0
            result.isMirrored = false
        }
        (result.width, result.height) = conversion.size(forWidth: result.width, height: result.height)
        if let pixelFormat = conversion.pixelFormat { result.pixelFormat = pixelFormat }
        return result
    }
}

extension SampleSource where Buffer == VideoFrame {
    /// These pictures converted for a sink (see `VideoConverter`).
    public func converted(_ conversion: VideoConversion) throws -> VideoConverter<Self> {
        try VideoConverter(upstream: self, conversion: conversion)
    }
}
