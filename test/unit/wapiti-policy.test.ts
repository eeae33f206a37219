import { describe, expect, it } from 'vitest';
import { BUILT_IN_POLICIES, SCAN_RULES } from '../../shared/policies/catalogue.ts';
import {
  INTERNET_MODULES,
  modulesForPolicy,
  modulesOfPlugin,
  moduleOfFinding,
  WAPITI_ATTACK_MODULES,
} from '../../scanner/src/engines/wapiti-modules.ts';

// The scan policy decides which of wapiti's modules a hosted scan runs (docs/SCAN-POLICIES.md, Hosted scans and
// wapiti's modules): the table names real plugins of the public policy operations.

describe("wapiti's modules and the scan policy's plugins", () => {
  it('maps every module to plugins of the catalogue, and none that calls out', () => {
    const ids = new Map(SCAN_RULES.map((rule) => [rule.pluginId, rule]));
    for (const module of WAPITI_ATTACK_MODULES) {
      expect(module.pluginIds.length, module.name).toBeGreaterThan(0);
      for (const id of module.pluginIds) expect(ids.has(id), `${module.name}: ${id}`).toBe(true);
    }
    expect(WAPITI_ATTACK_MODULES).toHaveLength(16);
    for (const name of INTERNET_MODULES) expect(WAPITI_ATTACK_MODULES.map((m) => m.name)).not.toContain(name);
  });

  it('runs a module only when every plugin it stands for is enabled', () => {
    expect(modulesForPolicy([])).toEqual(WAPITI_ATTACK_MODULES.map((m) => m.name));
    expect(modulesForPolicy(['40018'])).not.toContain('sql');
    expect(modulesForPolicy(['40018'])).not.toContain('blindsql');
    expect(modulesForPolicy(['40022'])).toEqual(expect.arrayContaining(['sql']));
    expect(modulesForPolicy(['40022'])).not.toContain('blindsql');
    const disabled = (name: string) =>
      BUILT_IN_POLICIES.find((p) => p.name === name)!
        .plugins.filter((p) => !p.enabled)
        .map((p) => p.pluginId);
    expect(modulesForPolicy(disabled('PASSIVE'))).toEqual(['csp', 'http_headers', 'cookieflags']);
  });

  it('tells which module reported a finding', () => {
    expect(moduleOfFinding('SQL Injection', 'SQL Injection (DMBS: MySQL)')).toBe('sql');
    expect(moduleOfFinding('Cross Site Scripting', 'XSS vulnerability found via injection')).toBe('xss');
    expect(moduleOfFinding('Cross Site Scripting', 'Permanent XSS vulnerability found')).toBe('permanentxss');
    expect(moduleOfFinding('Command execution', 'URL x seems vulnerable to Shellshock attack')).toBe('shellshock');
    expect(moduleOfFinding('HttpOnly Flag cookie', 'HttpOnly flag is not set')).toBe('cookieflags');
  });

  it("retests a finding with the modules that report its plugin's findings", () => {
    expect(modulesOfPlugin('wapiti.sql-injection')).toEqual(['sql']);
    expect(modulesOfPlugin('wapiti.blind-sql-injection')).toEqual(['blindsql']);
    expect(modulesOfPlugin('wapiti.cross-site-scripting')).toEqual(['xss', 'permanentxss']);
    expect(modulesOfPlugin('wapiti.command-execution')).toEqual(['exec', 'shellshock']);
    expect(modulesOfPlugin('wapiti.httponly-flag-cookie')).toEqual(['cookieflags']);
    // A scan-policy (ZAP) id: the modules standing for it.
    expect(modulesOfPlugin('40018')).toEqual(['sql', 'blindsql']);
    expect(modulesOfPlugin('wapiti.unknown-thing')).toEqual([]);
  });
});
