// The detector catalogue's ids. The patterns live in detectors.ts; this list is what configuration may name.
export const DETECTOR_IDS = [
  'pi_ignore_previous',
  'pi_role_play',
  'pi_dan',
  'pi_system_prompt_leak',
  'pi_developer_mode',
  'pi_new_instructions',
  'pi_jailbreak_keyword',
  'pi_disregard_rules',
  'pi_pretend_no_limits',
  'pi_reveal_secrets',
  'pi_encoded_payload',
  'pi_delimiter_injection',
  'pi_translation_smuggle',
  'pi_hypothetical_bypass',
  'pi_override_safety',
  'pi_grandma_exploit',
] as const;
export type DetectorId = (typeof DETECTOR_IDS)[number];
