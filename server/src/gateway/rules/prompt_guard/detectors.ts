// The prompt_guard detector catalogue (mode `regex`): one linear-time RE2 pattern per id in detector-ids.ts,
// compiled once at load. Patterns are case-insensitive and aim at instructions addressed to the model, not at
// topics: "how do I enable developer mode on my phone" must not fire, "you are now in developer mode" must.
// docs/prompt-guard.md documents each detector; detectors.test.ts holds true- and false-positive cases for all.
import RE2 from 're2';
import type { DetectorId } from '@tollgate/contract';
import type { UserRegex } from '../regex.ts';

export interface Detector {
  id: DetectorId;
  description: string;
  pattern: string;
}

const VERB_REVEAL = '(?:reveal|leak|expose|print|show|give|tell|share|output|dump|list|display|repeat)';

export const DETECTORS: readonly Detector[] = [
  {
    id: 'pi_ignore_previous',
    description: 'Asks the model to ignore, forget or skip its previous instructions.',
    pattern: String.raw`\b(?:ignore|forget|skip|overlook|drop)\s+(?:(?:all|any|the|your|of|these|those)\s+)*(?:previous|prior|above|earlier|preceding|foregoing|former|original)\s+(?:instructions?|prompts?|rules?|directions?|messages?|context|commands?|guidelines?|directives?)`,
  },
  {
    id: 'pi_role_play',
    description: 'Recasts the model as another, unrestricted persona ("from now on you are", "roleplay as an unfiltered AI").',
    pattern: String.raw`\bfrom\s+now\s+on,?\s+you\s+(?:are|will\s+be|shall\s+be)\b|\byou\s+are\s+no\s+longer\s+(?:an?\s+)?(?:ai|assistant|chatbot|language\s+model|bound)\b|\b(?:role-?play|act|behave)\s+as\s+(?:an?\s+)?(?:unfiltered|unrestricted|uncensored|evil|malicious|rogue|amoral)\b`,
  },
  {
    id: 'pi_dan',
    description: 'The "DAN" (Do Anything Now) jailbreak family; "DAN" must be upper case, so the name Dan does not fire.',
    pattern: String.raw`\bdo\s+anything\s+now\b|\b(?-i:DAN)\s+(?:mode|prompt|jailbreak)\b|\b(?:you\s+are|you're|act\s+as|pretend\s+to\s+be|as)\s+(?-i:DAN)\b|\b(?-i:DAN)\s*v?\d+(?:\.\d+)?\b`,
  },
  {
    id: 'pi_system_prompt_leak',
    description: 'Asks for the system prompt or hidden instructions, or to repeat the text above.',
    pattern: String.raw`\b(?:${VERB_REVEAL}|what\s+(?:is|are|was|were))\s+(?:me\s+)?(?:your|the)\s+(?:(?:full|entire|exact|original|initial|hidden|secret|system|first)\s+)+(?:prompt|instructions|message|directives)\b|\brepeat\s+(?:the\s+)?(?:words|text|everything)\s+above\b`,
  },
  {
    id: 'pi_developer_mode',
    description: 'Claims or requests a "developer mode" (or god/debug mode) of the model.',
    pattern: String.raw`\byou\s+(?:are\s+)?(?:now\s+)?(?:in|entering|running\s+in)\s+(?:developer|dev|god|debug|admin)\s+mode\b|\b(?:developer|dev|god)\s+mode\s+(?:is\s+)?(?:enabled|activated)\b|\bsimulate\s+(?:developer|dev)\s+mode\b|\bwith\s+developer\s+mode\s+enabled\b`,
  },
  {
    id: 'pi_new_instructions',
    description: 'Installs replacement instructions ("New instructions:", "your new task is", "the following instructions override").',
    pattern: String.raw`\byour\s+new\s+(?:system\s+)?(?:instructions?|directives?|task|role|objective|purpose|goal)\s+(?:is|are)\b|\bnew\s+(?:system\s+)?instructions?\s*:|\b(?:these|the\s+following)\s+instructions\s+(?:supersede|override|replace|take\s+precedence)`,
  },
  {
    id: 'pi_jailbreak_keyword',
    description: 'Talks about jailbreaking the model itself ("jailbreak the AI", "a jailbroken assistant", "jailbreak prompt").',
    pattern: String.raw`\bjailbreak(?:ing)?\s+(?:the\s+|this\s+)?(?:ai|model|assistant|chatbot|gpt|llm|claude|gemini|you|yourself)\b|\bjailbroken\s+(?:ai|model|assistant|mode|version|chatbot)\b|\bjailbreak\s+(?:mode|prompt)\b|\bthis\s+is\s+a\s+jailbreak\b`,
  },
  {
    id: 'pi_disregard_rules',
    description: 'Asks the model to disregard, bypass or violate its rules, guidelines, filters or training.',
    pattern: String.raw`\b(?:disregard|bypass|circumvent|ignore|violate|break)\s+(?:(?:all|any|your|the|of|its)\s+)*(?:(?:safety|content|ethical|usage|openai|anthropic|google)\s+)?(?:rules|guidelines|policies|restrictions|filters|safeguards|guardrails|programming|training|constraints)\b`,
  },
  {
    id: 'pi_pretend_no_limits',
    description: 'Asks the model to pretend it has no limits, or to answer as an uncensored model.',
    pattern: String.raw`\b(?:pretend|imagine|act\s+as\s+if|assume|suppose)\s+(?:that\s+)?you\s+(?:have|had|are|were)\s+(?:no|zero|without(?:\s+any)?)\s+(?:limits|limitations|restrictions|rules|filters|boundaries|guidelines|censorship|ethics|morals)\b|\bwithout\s+(?:any\s+)?(?:ethical|moral|content)\s+(?:limits|limitations|restrictions|filters|guidelines|constraints)\b|\b(?:unrestricted|uncensored|unfiltered)\s+(?:ai|model|assistant|chatbot|mode|response|answers?)\b`,
  },
  {
    id: 'pi_reveal_secrets',
    description: 'Asks the model to reveal API keys, passwords, tokens, credentials or environment variables.',
    pattern: String.raw`\b${VERB_REVEAL}\s+(?:me\s+)?(?:all\s+)?(?:your|the|any)\s+(?:(?:stored|internal|hidden|secret|private|admin|system)\s+)*(?:api\s*keys?|passwords?|credentials|secrets?|access\s+tokens?|tokens|env(?:ironment)?\s+variables|private\s+keys?)\b`,
  },
  {
    id: 'pi_encoded_payload',
    description: 'Smuggles instructions in an encoding (decode-and-follow requests, encoded instructions, long base64 blobs).',
    pattern: String.raw`\b(?:decode|decipher)\s+(?:this|the\s+following|it)\b[^.\n]{0,80}?\b(?:follow|execute|run|obey|do)\b|\b(?:base64|b64|rot13|hex)[- ]?encoded\s+(?:instructions?|commands?|prompt|payload)\b|[A-Za-z0-9+/]{160,}={0,2}`,
  },
  {
    id: 'pi_delimiter_injection',
    description: 'Injects chat-template or role delimiters (<|im_start|>, [INST], <<SYS>>, </system>).',
    pattern: String.raw`<\|(?:im_start|im_end|endoftext|eot_id|start_header_id|end_header_id|system|assistant|user)\|>|\[/?(?:INST|SYS)\]|<</?SYS>>|</?(?:system|system_prompt|instructions)>|\bend\s+of\s+(?:system\s+)?(?:prompt|instructions)\b`,
  },
  {
    id: 'pi_translation_smuggle',
    description: 'Hides an instruction behind a translation task, or forces answers into an encoding to evade filters.',
    pattern: String.raw`\btranslate\b[^.\n]{0,60}?\b(?:and\s+then|then|but\s+first)\s+(?:ignore|execute|follow|obey|run|reveal|disregard)\b|\b(?:respond|answer|reply)\s+only\s+in\s+(?:base64|rot13|hex|binary|leetspeak|pig\s+latin)\b`,
  },
  {
    id: 'pi_hypothetical_bypass',
    description: 'Wraps a request for harmful instructions in a hypothetical or fictional frame.',
    pattern: String.raw`\b(?:hypothetically|in\s+a\s+hypothetical\s+(?:world|scenario|story)|for\s+(?:a|my)\s+(?:novel|story|screenplay|fiction)|purely\s+fictional(?:ly)?|in\s+a\s+fictional\s+(?:world|universe|scenario))\b[^.\n]{0,120}?\b(?:how\s+(?:to|would|could|do|does|can)|step[- ]by[- ]step|instructions\s+(?:for|to|on))\b[^.\n]{0,80}?\b(?:make|build|synthesi[sz]e|create|hack|bypass|steal|kill|weapon|bomb|explosive|malware|ransomware|drugs?|meth|poison)`,
  },
  {
    id: 'pi_override_safety',
    description: 'Asks to turn off or remove the model\'s safety filters, moderation or alignment.',
    pattern: String.raw`\b(?:turn\s+off|disable|deactivate|remove|switch\s+off|lift|suspend|override)\s+(?:(?:all|your|the|any|its)\s+)*(?:safety|content|moderation|ethical|ethics|censorship)\s+(?:filters?|protocols?|guardrails?|restrictions|alignment|guidelines|moderation|training|policies)\b`,
  },
  {
    id: 'pi_grandma_exploit',
    description: 'The "grandma" exploit: a deceased relative who used to recite keys, recipes for weapons or instructions.',
    pattern: String.raw`\b(?:grandma|grandmother|granny|nana)\b[^.\n]{0,100}?\b(?:used\s+to|would)\s+(?:tell|read|sing|recite|give)\b[^.\n]{0,100}?\b(?:recipe\s+for|instructions|steps|keys?|codes?|napalm|passwords?|serial|license|how\s+to)\b`,
  },
];

export interface CompiledDetector {
  id: DetectorId;
  /** For tests (no g flag, so no lastIndex state). */
  test: UserRegex;
  /** For rewrite (global). */
  global: UserRegex;
}

export const COMPILED_DETECTORS: ReadonlyMap<DetectorId, CompiledDetector> = new Map(DETECTORS.map((d) => [
  d.id, { id: d.id, test: new RE2(d.pattern, 'iu'), global: new RE2(d.pattern, 'giu') },
]));
