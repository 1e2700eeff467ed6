import CometSchema

/// The schema compiler on one file: diagnostics or a registry, never a crash; diagnostics are
/// rendered too, as `schema check` renders them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSchema(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let source = SourceFile(path: "fuzz.cal", text: FuzzSupport.text(data, size))
    let result = SchemaCompiler.compile(sources: [source])
    _ = DiagnosticRenderer(sources: [source]).render(Array(result.diagnostics.prefix(200)))
    return 0
}
