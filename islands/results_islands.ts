/** The public results page's islands: all that its bundle (static/islands/boot_results.js) ships. */
import { AnswerBox } from "./Answer.tsx";
import { Results } from "./Results.tsx";
import { SearchBox } from "./SearchBox.tsx";

// "Answer" names the island in the page (data-island); lib/answers has its own Answer.
export const RESULTS_ISLANDS = { Answer: AnswerBox, Results, SearchBox } as const;
