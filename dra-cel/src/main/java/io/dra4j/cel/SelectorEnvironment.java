package io.dra4j.cel;

import com.google.common.collect.ImmutableCollection;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.checker.CelStandardDeclarations;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.CelType;
import dev.cel.common.types.CelTypeProvider;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.StructType;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelStandardFunctions;
import dev.cel.runtime.RuntimeEquality;
import dev.cel.runtime.RuntimeHelpers;
import dev.cel.runtime.standard.InOperator;
import dev.cel.validator.CelValidator;
import dev.cel.validator.CelValidatorFactory;
import dev.cel.validator.validators.HomogeneousLiteralValidator;
import java.util.Map;
import java.util.Optional;

/**
 * The one CEL environment for DRA device selectors. Built once per JVM (building it costs far more
 * than compiling an expression); the resulting {@link Cel} is immutable and thread-safe.
 *
 * <p>Enabled beyond standard CEL and its macros: {@code cel.bind} (bindings), optional syntax and
 * functions ({@code .?field}, {@code orValue}), the strings extension, the sets extension, two-
 * variable comprehensions, heterogeneous numeric comparison and homogeneous aggregate literals (as
 * in Kubernetes' base environment), plus {@link KubernetesFunctions}.
 */
final class SelectorEnvironment {

  private SelectorEnvironment() {}

  /** The typed {@code device} variable: unknown fields are compile errors, as in Kubernetes. */
  static final StructType DEVICE_TYPE = deviceType();

  private static final Cel CEL = build(CelSelectors.MAX_COST);

  // Kubernetes' HomogeneousAggregateLiterals: [1, 'a'] is a compile error.
  private static final CelValidator VALIDATOR =
      CelValidatorFactory.standardCelValidatorBuilder(CEL)
          .addAstValidators(HomogeneousLiteralValidator.newInstance())
          .build();

  static Cel cel() {
    return CEL;
  }

  /** Parses, type-checks and validates an expression. */
  static CelAbstractSyntaxTree compile(String expression) throws CelValidationException {
    return VALIDATOR.validate(CEL.compile(expression).getAst()).getAst();
  }

  private static StructType deviceType() {
    Map<String, CelType> fields =
        Map.of(
            "driver",
            SimpleType.STRING,
            "attributes",
            MapType.create(SimpleType.STRING, MapType.create(SimpleType.STRING, SimpleType.DYN)),
            "capacity",
            MapType.create(
                SimpleType.STRING, MapType.create(SimpleType.STRING, KubernetesFunctions.QUANTITY)),
            "allowMultipleAllocations",
            SimpleType.BOOL);
    return StructType.create(
        "kubernetes.DRADevice",
        ImmutableSet.copyOf(fields.keySet()),
        name -> Optional.ofNullable(fields.get(name)));
  }

  private static Cel build(long maxCost) {
    CelOptions options =
        CelOptions.current()
            .enableOptionalSyntax(true)
            .enableHeterogeneousNumericComparisons(true)
            // A backstop only: CostTracker stops loops long before this.
            .comprehensionMaxIterations((int) Math.min(Integer.MAX_VALUE, maxCost))
            .build();
    RuntimeEquality equality = RuntimeEquality.create(RuntimeHelpers.create(), options);
    CelStandardFunctions standardFunctions =
        CelStandardFunctions.newBuilder()
            .filterFunctions((function, overload) -> overload != InOperator.InOverload.IN_MAP)
            .build();
    CelTypeProvider types =
        new CelTypeProvider() {
          @Override
          public ImmutableCollection<CelType> types() {
            return ImmutableList.of(DEVICE_TYPE);
          }

          @Override
          public Optional<CelType> findType(String typeName) {
            return DEVICE_TYPE.name().equals(typeName)
                ? Optional.of(DEVICE_TYPE)
                : Optional.empty();
          }
        };
    return CelFactory.standardCelBuilder()
        .setOptions(options)
        .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
        // Needed to replace one standard binding (`in` on maps); the declarations stay complete.
        .setStandardEnvironmentEnabled(false)
        .setStandardDeclarations(CelStandardDeclarations.newBuilder().build())
        .setStandardFunctions(standardFunctions)
        .addCompilerLibraries(
            CelExtensions.bindings(),
            CelExtensions.optional(),
            CelExtensions.strings(),
            CelExtensions.sets(options),
            CelExtensions.comprehensions())
        .addRuntimeLibraries(
            CelExtensions.optional(),
            CelExtensions.strings(),
            CelExtensions.sets(options),
            CelExtensions.comprehensions())
        .setTypeProvider(types)
        .addVar("device", DEVICE_TYPE)
        .addFunctionDeclarations(KubernetesFunctions.declarations())
        .addFunctionBindings(KubernetesFunctions.bindings(equality))
        .setResultType(SimpleType.BOOL)
        .build();
  }
}
