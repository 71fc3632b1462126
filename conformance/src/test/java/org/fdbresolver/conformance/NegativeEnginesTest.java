package org.fdbresolver.conformance;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.ArrayList;
import java.util.List;
import org.fdbresolver.api.ConflictSetConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The suite must catch every deliberately broken engine: proof that its checks can fail. */
class NegativeEnginesTest {

    @ParameterizedTest
    @EnumSource(BrokenEngines.class)
    void differentialChecksCatchTheBrokenEngine(BrokenEngines flaw) {
        EnginesUnderTest.Variant broken = new EnginesUnderTest.Variant(flaw.name(),
                ConflictSetConfig.builder().engine("broken").build(), flaw::create);
        List<DifferentialCases.Spec> specs = new ArrayList<>(DifferentialCases.fixed());
        specs.addAll(DifferentialCases.randomized());
        String caught = null;
        for (DifferentialCases.Spec spec : specs) {
            DifferentialCases.Case c = spec.generate();
            String difference = DifferentialTest.run(broken, c).firstDifference(DifferentialTest.run(EnginesUnderTest.reference(), c));
            if (difference != null) {
                caught = c + ": " + difference;
                break;
            }
        }
        assertNotNull(caught, flaw + " passed every differential check");
        // Said as the success it is: a line naming a wrong decision would read like a failure on the console.
        System.out.println("ok, the suite rejects the deliberately broken engine " + flaw + " (first difference on " + caught + ")");
    }
}
