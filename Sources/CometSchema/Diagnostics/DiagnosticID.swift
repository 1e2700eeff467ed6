/// The catalogue of diagnostic identifiers. Codes never change meaning once released;
/// retired codes are not reused. Messages are built in `DiagnosticCatalogue`.
public enum DiagnosticID: String, Sendable, Hashable, CaseIterable, Codable {
    // Lexical and syntax errors (S0xx)
    case unexpectedCharacter = "S001"
    case unterminatedString = "S002"
    case invalidEscape = "S003"
    case expectedToken = "S004"
    case missingDomain = "S005"
    case invalidNumber = "S006"
    case nestedArray = "S007"
    case expectedDeclaration = "S008"
    case duplicateDomainDeclaration = "S009"
    case unclosedBlock = "S010"
    case optionalArrayElement = "S011"

    // Name resolution and declarations (E1xx)
    case unknownType = "E100"
    case duplicateDeclaration = "E101"
    case duplicateProperty = "E102"
    case duplicateEnumCase = "E103"
    case duplicateUnionCase = "E104"
    case duplicateParameter = "E105"
    case unknownDomain = "E106"
    case emptyEnum = "E107"
    case emptyUnion = "E108"

    // Annotations (E2xx)
    case unknownAnnotation = "E200"
    case misplacedAnnotation = "E201"
    case annotationArgument = "E202"
    case duplicateAnnotation = "E203"
    case unknownPropertyInAnnotation = "E204"
    case invalidPhrase = "E205"
    case unknownPhrasePlaceholder = "E206"

    // Types, values and defaults (E3xx)
    case invalidDefault = "E300"
    case requiredParameterWithDefault = "E301"
    case referenceDefault = "E302"
    case unionCaseType = "E303"
    case searchableNotText = "E304"
    case nonBlankNotText = "E305"
    case defaultLengthMisplaced = "E306"

    // Entities (E4xx)
    case missingIdentifier = "E400"
    case invalidIdentifier = "E401"
    case transientMisuse = "E402"
    case recursiveTransient = "E403"
    case duplicateTitle = "E404"
    case missingTitle = "W405"

    // Intents (E5xx)
    case intentActionNotIndexedEntity = "E500"
    case missingTarget = "E501"
    case targetType = "E502"
    case returnType = "E503"
    case parameterPropertyMismatch = "E504"
    case duplicateTarget = "E505"

    public var defaultSeverity: Diagnostic.Severity {
        rawValue.hasPrefix("W") ? .warning : .error
    }
}
